"""Strata core: the agent-session services, the turn loop and the tools, with no terminal and no wires.

The public API is what this module re-exports. Names load on first use, so importing one service (or
`strata --help`) does not pay for the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from strata_core.bus import Bus
    from strata_core.clock import Clock, FrozenClock, SystemClock
    from strata_core.config.paths import StrataPaths
    from strata_core.config.schema import ConfigBlocks
    from strata_core.config.service import Config, ConfigError, ConfigInfo, ConfigService
    from strata_core.config.structure import structure_config
    from strata_core.container import CoreContainer, PromptContainer
    from strata_core.context.agent import AgentInfo, Agents, AgentService
    from strata_core.context.instruction import Instruction, InstructionBlock, InstructionService, UrlFetcher
    from strata_core.context.project import Project, ProjectInfo, ProjectService
    from strata_core.context.skill import SkillInfo, Skills, SkillService
    from strata_core.engine.loop import SessionLoop
    from strata_core.engine.prompt_input import AgentInput, FileInput, PromptRequest, SubtaskInput, TextInput
    from strata_core.errors import MissingExtraError, StrataError
    from strata_core.history import filter_compacted, to_model_messages
    from strata_core.ids import Ids, seeded_entropy
    from strata_core.llm import LanguageModel, ModelError, ModelInfo, ModelRequest, ModelResolver, StreamEvent
    from strata_core.message import AssistantMessage, MessageWithParts, Part, UserMessage
    from strata_core.permission.flow import PermissionFlow
    from strata_core.permission.rules import Rule, Ruleset, evaluate
    from strata_core.prompt.system import AssembledSystemPrompt, SystemPromptService
    from strata_core.runtime import Runtime, RuntimeOptionsError, open_runtime
    from strata_core.session.memory_store import MemorySessionStore
    from strata_core.session.service import SessionService
    from strata_core.session.sqlite_store import SqliteSessionStore
    from strata_core.session.store import SessionStore

_EXPORTS: dict[str, str] = {
    "AgentInfo": "strata_core.context.agent",
    "AgentInput": "strata_core.engine.prompt_input",
    "AgentService": "strata_core.context.agent",
    "Agents": "strata_core.context.agent",
    "AssembledSystemPrompt": "strata_core.prompt.system",
    "AssistantMessage": "strata_core.message",
    "Bus": "strata_core.bus",
    "Clock": "strata_core.clock",
    "Config": "strata_core.config.service",
    "ConfigBlocks": "strata_core.config.schema",
    "ConfigError": "strata_core.config.service",
    "ConfigInfo": "strata_core.config.service",
    "ConfigService": "strata_core.config.service",
    "CoreContainer": "strata_core.container",
    "FileInput": "strata_core.engine.prompt_input",
    "FrozenClock": "strata_core.clock",
    "Ids": "strata_core.ids",
    "Instruction": "strata_core.context.instruction",
    "InstructionBlock": "strata_core.context.instruction",
    "InstructionService": "strata_core.context.instruction",
    "LanguageModel": "strata_core.llm",
    "MemorySessionStore": "strata_core.session.memory_store",
    "MessageWithParts": "strata_core.message",
    "ModelError": "strata_core.llm",
    "ModelInfo": "strata_core.llm",
    "ModelRequest": "strata_core.llm",
    "ModelResolver": "strata_core.llm",
    "Part": "strata_core.message",
    "PermissionFlow": "strata_core.permission.flow",
    "Project": "strata_core.context.project",
    "ProjectInfo": "strata_core.context.project",
    "ProjectService": "strata_core.context.project",
    "PromptContainer": "strata_core.container",
    "PromptRequest": "strata_core.engine.prompt_input",
    "Rule": "strata_core.permission.rules",
    "Ruleset": "strata_core.permission.rules",
    "Runtime": "strata_core.runtime",
    "RuntimeOptionsError": "strata_core.runtime",
    "SessionLoop": "strata_core.engine.loop",
    "SessionService": "strata_core.session.service",
    "SessionStore": "strata_core.session.store",
    "SkillInfo": "strata_core.context.skill",
    "SkillService": "strata_core.context.skill",
    "Skills": "strata_core.context.skill",
    "SqliteSessionStore": "strata_core.session.sqlite_store",
    "MissingExtraError": "strata_core.errors",
    "StrataPaths": "strata_core.config.paths",
    "StrataError": "strata_core.errors",
    "StreamEvent": "strata_core.llm",
    "SubtaskInput": "strata_core.engine.prompt_input",
    "SystemClock": "strata_core.clock",
    "SystemPromptService": "strata_core.prompt.system",
    "TextInput": "strata_core.engine.prompt_input",
    "UrlFetcher": "strata_core.context.instruction",
    "UserMessage": "strata_core.message",
    "evaluate": "strata_core.permission.rules",
    "filter_compacted": "strata_core.history",
    "open_runtime": "strata_core.runtime",
    "seeded_entropy": "strata_core.ids",
    "structure_config": "strata_core.config.structure",
    "to_model_messages": "strata_core.history",
}

__all__ = [
    "AgentInfo",
    "AgentInput",
    "AgentService",
    "Agents",
    "AssembledSystemPrompt",
    "AssistantMessage",
    "Bus",
    "Clock",
    "Config",
    "ConfigBlocks",
    "ConfigError",
    "ConfigInfo",
    "ConfigService",
    "CoreContainer",
    "FileInput",
    "FrozenClock",
    "Ids",
    "Instruction",
    "InstructionBlock",
    "InstructionService",
    "LanguageModel",
    "MemorySessionStore",
    "MessageWithParts",
    "MissingExtraError",
    "ModelError",
    "ModelInfo",
    "ModelRequest",
    "ModelResolver",
    "Part",
    "PermissionFlow",
    "Project",
    "ProjectInfo",
    "ProjectService",
    "PromptContainer",
    "PromptRequest",
    "Rule",
    "Ruleset",
    "Runtime",
    "RuntimeOptionsError",
    "SessionLoop",
    "SessionService",
    "SessionStore",
    "SkillInfo",
    "SkillService",
    "Skills",
    "SqliteSessionStore",
    "StrataError",
    "StrataPaths",
    "StreamEvent",
    "SubtaskInput",
    "SystemClock",
    "SystemPromptService",
    "TextInput",
    "UrlFetcher",
    "UserMessage",
    "evaluate",
    "filter_compacted",
    "open_runtime",
    "seeded_entropy",
    "structure_config",
    "to_model_messages",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*globals(), *__all__]
