"""Strata core: the agent-session services, the turn loop and the tools, with no terminal and no wires.

The public API is what this module re-exports. Names load on first use, so importing one service (or
`strata --help`) does not pay for the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from strata_core.agent import AgentInfo, Agents, AgentService
    from strata_core.bus import Bus
    from strata_core.config import Config, ConfigError, ConfigInfo, ConfigService
    from strata_core.container import CoreContainer
    from strata_core.history import filter_compacted, to_model_messages
    from strata_core.instruction import Instruction, InstructionBlock, InstructionService, UrlFetcher
    from strata_core.llm import LanguageModel, ModelError, ModelInfo, ModelRequest, ModelResolver, StreamEvent
    from strata_core.loop import SessionLoop
    from strata_core.message import AssistantMessage, MessageWithParts, Part, UserMessage
    from strata_core.paths import StrataPaths
    from strata_core.permission import Rule, Ruleset, evaluate
    from strata_core.permission_flow import PermissionFlow
    from strata_core.project import Project, ProjectInfo, ProjectService
    from strata_core.prompt_input import FileInput, PromptRequest, SubtaskInput, TextInput
    from strata_core.runtime import Runtime, open_runtime
    from strata_core.session.memory_store import MemorySessionStore
    from strata_core.session.service import SessionService
    from strata_core.session.sqlite_store import SqliteSessionStore
    from strata_core.session.store import SessionStore
    from strata_core.skill import SkillInfo, Skills, SkillService
    from strata_core.system_prompt import AssembledSystemPrompt, Clock, SystemPromptService

_EXPORTS: dict[str, str] = {
    "AgentInfo": "strata_core.agent",
    "AgentService": "strata_core.agent",
    "Agents": "strata_core.agent",
    "AssembledSystemPrompt": "strata_core.system_prompt",
    "AssistantMessage": "strata_core.message",
    "Bus": "strata_core.bus",
    "Clock": "strata_core.system_prompt",
    "Config": "strata_core.config",
    "ConfigError": "strata_core.config",
    "ConfigInfo": "strata_core.config",
    "ConfigService": "strata_core.config",
    "CoreContainer": "strata_core.container",
    "FileInput": "strata_core.prompt_input",
    "Instruction": "strata_core.instruction",
    "InstructionBlock": "strata_core.instruction",
    "InstructionService": "strata_core.instruction",
    "LanguageModel": "strata_core.llm",
    "MemorySessionStore": "strata_core.session.memory_store",
    "MessageWithParts": "strata_core.message",
    "ModelError": "strata_core.llm",
    "ModelInfo": "strata_core.llm",
    "ModelRequest": "strata_core.llm",
    "ModelResolver": "strata_core.llm",
    "Part": "strata_core.message",
    "PermissionFlow": "strata_core.permission_flow",
    "Project": "strata_core.project",
    "ProjectInfo": "strata_core.project",
    "ProjectService": "strata_core.project",
    "PromptRequest": "strata_core.prompt_input",
    "Rule": "strata_core.permission",
    "Ruleset": "strata_core.permission",
    "Runtime": "strata_core.runtime",
    "SessionLoop": "strata_core.loop",
    "SessionService": "strata_core.session.service",
    "SessionStore": "strata_core.session.store",
    "SkillInfo": "strata_core.skill",
    "SkillService": "strata_core.skill",
    "Skills": "strata_core.skill",
    "SqliteSessionStore": "strata_core.session.sqlite_store",
    "StrataPaths": "strata_core.paths",
    "StreamEvent": "strata_core.llm",
    "SubtaskInput": "strata_core.prompt_input",
    "SystemPromptService": "strata_core.system_prompt",
    "TextInput": "strata_core.prompt_input",
    "UrlFetcher": "strata_core.instruction",
    "UserMessage": "strata_core.message",
    "evaluate": "strata_core.permission",
    "filter_compacted": "strata_core.history",
    "open_runtime": "strata_core.runtime",
    "to_model_messages": "strata_core.history",
}

__all__ = [
    "AgentInfo",
    "AgentService",
    "Agents",
    "AssembledSystemPrompt",
    "AssistantMessage",
    "Bus",
    "Clock",
    "Config",
    "ConfigError",
    "ConfigInfo",
    "ConfigService",
    "CoreContainer",
    "FileInput",
    "Instruction",
    "InstructionBlock",
    "InstructionService",
    "LanguageModel",
    "MemorySessionStore",
    "MessageWithParts",
    "ModelError",
    "ModelInfo",
    "ModelRequest",
    "ModelResolver",
    "Part",
    "PermissionFlow",
    "Project",
    "ProjectInfo",
    "ProjectService",
    "PromptRequest",
    "Rule",
    "Ruleset",
    "Runtime",
    "SessionLoop",
    "SessionService",
    "SessionStore",
    "SkillInfo",
    "SkillService",
    "Skills",
    "SqliteSessionStore",
    "StrataPaths",
    "StreamEvent",
    "SubtaskInput",
    "SystemPromptService",
    "TextInput",
    "UrlFetcher",
    "UserMessage",
    "evaluate",
    "filter_compacted",
    "open_runtime",
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
