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
    from strata_core.context.instruction import (
        Instruction,
        InstructionBlock,
        InstructionFailure,
        InstructionService,
        InstructionSet,
        UrlFetcher,
    )
    from strata_core.context.skill import SkillInfo, Skills, SkillService
    from strata_core.engine.loop import ResolvedTurn, SessionLoop, TurnChoice
    from strata_core.engine.loop_services import Loop, TurnEnd
    from strata_core.engine.processor import Processor, StepEnd
    from strata_core.engine.prompt_input import AgentInput, FileInput, PromptRequest, SubtaskInput, TextInput
    from strata_core.engine.title import TitleModel
    from strata_core.engine.turn_targets import AgentNotFoundError
    from strata_core.errors import MissingExtraError, StrataError
    from strata_core.history import filter_compacted, to_model_messages
    from strata_core.ids import Ids, seeded_entropy
    from strata_core.llm import LanguageModel, ModelError, ModelInfo, ModelRequest, ModelResolver, StreamEvent
    from strata_core.llm.model import ModelNotFoundError
    from strata_core.message import AssistantMessage, MessageWithParts, Part, UserMessage
    from strata_core.permission.approval import Approval, Approver, NoAnswer, Refuser, Reject, approve_all
    from strata_core.permission.bus_approver import BusApprover
    from strata_core.permission.flow import Permission, PermissionFlow
    from strata_core.permission.rules import PermissionRefusedError, Rule, Ruleset, evaluate
    from strata_core.project import Project, ProjectInfo, ProjectService
    from strata_core.prompt.system import AssembledSystemPrompt, SystemPrompt, SystemPromptRequest, SystemPromptService
    from strata_core.runtime import Runtime, RuntimeOptions, RuntimeOptionsError, open_runtime, overrides
    from strata_core.session.lease import SessionBusyError
    from strata_core.session.memory_store import MemorySessionStore
    from strata_core.session.service import SessionService
    from strata_core.session.session import Session
    from strata_core.session.sqlite_store import SqliteSessionStore
    from strata_core.session.storage_errors import StorageError
    from strata_core.session.store import SessionNotFoundError, SessionStore
    from strata_core.tool.contract import ToolFailure

_EXPORTS: dict[str, str] = {
    "AgentInfo": "strata_core.context.agent",
    "AgentInput": "strata_core.engine.prompt_input",
    "AgentNotFoundError": "strata_core.engine.turn_targets",
    "AgentService": "strata_core.context.agent",
    "Agents": "strata_core.context.agent",
    "Approval": "strata_core.permission.approval",
    "Approver": "strata_core.permission.approval",
    "AssembledSystemPrompt": "strata_core.prompt.system",
    "AssistantMessage": "strata_core.message",
    "Bus": "strata_core.bus",
    "BusApprover": "strata_core.permission.bus_approver",
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
    "InstructionFailure": "strata_core.context.instruction",
    "InstructionSet": "strata_core.context.instruction",
    "InstructionService": "strata_core.context.instruction",
    "LanguageModel": "strata_core.llm",
    "Loop": "strata_core.engine.loop_services",
    "MemorySessionStore": "strata_core.session.memory_store",
    "MessageWithParts": "strata_core.message",
    "ModelError": "strata_core.llm",
    "ModelInfo": "strata_core.llm",
    "ModelNotFoundError": "strata_core.llm.model",
    "ModelRequest": "strata_core.llm",
    "ModelResolver": "strata_core.llm",
    "NoAnswer": "strata_core.permission.approval",
    "Part": "strata_core.message",
    "Permission": "strata_core.permission.flow",
    "PermissionFlow": "strata_core.permission.flow",
    "PermissionRefusedError": "strata_core.permission.rules",
    "Processor": "strata_core.engine.processor",
    "Project": "strata_core.project",
    "ProjectInfo": "strata_core.project",
    "ProjectService": "strata_core.project",
    "PromptContainer": "strata_core.container",
    "PromptRequest": "strata_core.engine.prompt_input",
    "Refuser": "strata_core.permission.approval",
    "Reject": "strata_core.permission.approval",
    "Rule": "strata_core.permission.rules",
    "Ruleset": "strata_core.permission.rules",
    "Runtime": "strata_core.runtime",
    "RuntimeOptions": "strata_core.runtime",
    "RuntimeOptionsError": "strata_core.runtime",
    "ResolvedTurn": "strata_core.engine.loop",
    "SessionBusyError": "strata_core.session.lease",
    "Session": "strata_core.session.session",
    "SessionLoop": "strata_core.engine.loop",
    "SessionNotFoundError": "strata_core.session.store",
    "TurnChoice": "strata_core.engine.loop",
    "TurnEnd": "strata_core.engine.loop_services",
    "SessionService": "strata_core.session.service",
    "SessionStore": "strata_core.session.store",
    "SkillInfo": "strata_core.context.skill",
    "StepEnd": "strata_core.engine.processor",
    "SkillService": "strata_core.context.skill",
    "Skills": "strata_core.context.skill",
    "SqliteSessionStore": "strata_core.session.sqlite_store",
    "StorageError": "strata_core.session.storage_errors",
    "MissingExtraError": "strata_core.errors",
    "StrataError": "strata_core.errors",
    "StrataPaths": "strata_core.config.paths",
    "StreamEvent": "strata_core.llm",
    "SubtaskInput": "strata_core.engine.prompt_input",
    "SystemClock": "strata_core.clock",
    "SystemPrompt": "strata_core.prompt.system",
    "SystemPromptRequest": "strata_core.prompt.system",
    "SystemPromptService": "strata_core.prompt.system",
    "TextInput": "strata_core.engine.prompt_input",
    "ToolFailure": "strata_core.tool.contract",
    "TitleModel": "strata_core.engine.title",
    "UrlFetcher": "strata_core.context.instruction",
    "UserMessage": "strata_core.message",
    "approve_all": "strata_core.permission.approval",
    "evaluate": "strata_core.permission.rules",
    "filter_compacted": "strata_core.history",
    "open_runtime": "strata_core.runtime",
    "overrides": "strata_core.runtime",
    "seeded_entropy": "strata_core.ids",
    "structure_config": "strata_core.config.structure",
    "to_model_messages": "strata_core.history",
}

__all__ = [
    "AgentInfo",
    "AgentInput",
    "AgentNotFoundError",
    "AgentService",
    "Agents",
    "Approval",
    "Approver",
    "AssembledSystemPrompt",
    "AssistantMessage",
    "Bus",
    "BusApprover",
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
    "InstructionFailure",
    "InstructionService",
    "InstructionSet",
    "LanguageModel",
    "Loop",
    "MemorySessionStore",
    "MessageWithParts",
    "MissingExtraError",
    "ModelError",
    "ModelInfo",
    "ModelNotFoundError",
    "ModelRequest",
    "ModelResolver",
    "NoAnswer",
    "Part",
    "Permission",
    "PermissionFlow",
    "PermissionRefusedError",
    "Processor",
    "Project",
    "ProjectInfo",
    "ProjectService",
    "PromptContainer",
    "PromptRequest",
    "Refuser",
    "Reject",
    "ResolvedTurn",
    "Rule",
    "Ruleset",
    "Runtime",
    "RuntimeOptions",
    "RuntimeOptionsError",
    "Session",
    "SessionBusyError",
    "SessionLoop",
    "SessionNotFoundError",
    "SessionService",
    "SessionStore",
    "SkillInfo",
    "SkillService",
    "Skills",
    "SqliteSessionStore",
    "StepEnd",
    "StorageError",
    "StrataError",
    "StrataPaths",
    "StreamEvent",
    "SubtaskInput",
    "SystemClock",
    "SystemPrompt",
    "SystemPromptRequest",
    "SystemPromptService",
    "TextInput",
    "TitleModel",
    "ToolFailure",
    "TurnChoice",
    "TurnEnd",
    "UrlFetcher",
    "UserMessage",
    "approve_all",
    "evaluate",
    "filter_compacted",
    "open_runtime",
    "overrides",
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
