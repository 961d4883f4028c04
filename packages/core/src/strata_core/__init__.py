"""Strata core: the agent-session services, the turn loop and the tools, with no terminal and no wires.

The public API is what this module re-exports, the error tree of `strata_core.errors` included (every error
the core raises on purpose, importable from here). Names load on first use, so importing one service (or
`strata --help`) does not pay for the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.bus import Bus
    from strata_core.clock import Clock, FrozenClock, SystemClock
    from strata_core.config.errors import ConfigError, ConfigValueError
    from strata_core.config.paths import StrataPaths
    from strata_core.config.schema import ConfigBlocks
    from strata_core.config.service import Config, ConfigInfo, ConfigService
    from strata_core.config.structure import structure_config
    from strata_core.container import CoreContainer, PromptContainer
    from strata_core.context.agent import AgentInfo, Agents, AgentService, DefaultAgentError
    from strata_core.context.command import CommandNotFoundError
    from strata_core.context.instruction import (
        Instruction,
        InstructionBlock,
        InstructionFailure,
        InstructionService,
        InstructionSet,
        UrlFetcher,
    )
    from strata_core.context.instruction_urls import UrlFetchError
    from strata_core.context.skill import SkillInfo, Skills, SkillService
    from strata_core.engine.attachment import AttachmentError
    from strata_core.engine.loop import ResolvedTurn, SessionLoop, TurnChoice
    from strata_core.engine.loop_services import Loop, TurnEnd
    from strata_core.engine.processor import Processor, StepEnd
    from strata_core.engine.prompt_input import (
        AgentInput,
        FileInput,
        MessageIdError,
        PromptRequest,
        SubtaskInput,
        TextInput,
    )
    from strata_core.engine.subagent import NoLoopError
    from strata_core.engine.title import TitleModel
    from strata_core.engine.turn_targets import AgentNotFoundError
    from strata_core.errors import MissingExtraError, StrataError
    from strata_core.history import filter_compacted, to_model_messages
    from strata_core.http import NonLoopbackRequestError
    from strata_core.ids import Ids, seeded_entropy
    from strata_core.image_fit import ImageFitError
    from strata_core.json_text import JsonNestingError
    from strata_core.llm import LanguageModel, ModelInfo, ModelRequest, ModelResolver, StreamEvent
    from strata_core.llm.errors import (
        AuthenticationError,
        BadResponseError,
        ContextOverflowError,
        ModelError,
        RateLimitedError,
        ServerError,
        ServerNotListeningError,
        TransportError,
    )
    from strata_core.llm.model import ModelNotFoundError
    from strata_core.lsp.jsonrpc import LanguageServerGoneError, LanguageServerReplyError
    from strata_core.markdown import MarkdownFrontmatterError
    from strata_core.message import AssistantMessage, MessageWithParts, Part, UserMessage
    from strata_core.permission.approval import Approval, Approver, NoAnswer, Refuser, Reject, approve_all
    from strata_core.permission.bus_approver import BusApprover
    from strata_core.permission.flow import Permission, PermissionFlow
    from strata_core.permission.rules import (
        CorrectedError,
        DeniedError,
        NoResponderError,
        PermissionConfigError,
        PermissionRefusedError,
        RejectedError,
        Rule,
        Ruleset,
        evaluate,
    )
    from strata_core.project import Project, ProjectInfo, ProjectService
    from strata_core.prompt.system import AssembledSystemPrompt, SystemPrompt, SystemPromptRequest, SystemPromptService
    from strata_core.runtime import Runtime, RuntimeOptions, RuntimeOptionsError, open_runtime, overrides
    from strata_core.sandbox.masks import TooManySecretFilesError
    from strata_core.sandbox.settings import SandboxSettingError
    from strata_core.serialization import PartShapeError
    from strata_core.session.export import ExportFormatError
    from strata_core.session.lease import SessionBusyError
    from strata_core.session.memory_store import MemorySessionStore
    from strata_core.session.migrations import SchemaTooNewError
    from strata_core.session.opencode_db import OpenCodeDatabaseError, OpenCodeSessionNotFoundError
    from strata_core.session.service import MessageNotFoundError, SessionExistsError, SessionService
    from strata_core.session.session import Session
    from strata_core.session.sqlite_store import SqliteSessionStore
    from strata_core.session.storage_errors import (
        StorageDamagedError,
        StorageError,
        StorageFullError,
        StorageLockedError,
        StorageReadOnlyError,
    )
    from strata_core.session.store import SessionNotFoundError, SessionStore, StoreClosedError
    from strata_core.testing.script import ScriptError, ScriptExhaustedError
    from strata_core.texts import PromptFileMissingError
    from strata_core.tool.builtin.plan_exit import QuestionDismissedError
    from strata_core.tool.contract import ToolFailure
    from strata_core.tool.schema import ToolDefinitionError
    from strata_core.tool.support.confined_file import ChangedWhileOpening, NotRegularFile
    from strata_core.tool.support.edit_match import EditMatchError
    from strata_core.tool.support.patch import PatchError
    from strata_core.tool.support.search import SearchError

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
    "AttachmentError",
    "AuthenticationError",
    "BadResponseError",
    "Bus",
    "BusApprover",
    "ChangedWhileOpening",
    "Clock",
    "CommandNotFoundError",
    "Config",
    "ConfigBlocks",
    "ConfigError",
    "ConfigInfo",
    "ConfigService",
    "ConfigValueError",
    "ContextOverflowError",
    "CoreContainer",
    "CorrectedError",
    "DefaultAgentError",
    "DeniedError",
    "EditMatchError",
    "ExportFormatError",
    "FileInput",
    "FrozenClock",
    "Ids",
    "ImageFitError",
    "Instruction",
    "InstructionBlock",
    "InstructionFailure",
    "InstructionService",
    "InstructionSet",
    "JsonNestingError",
    "LanguageModel",
    "LanguageServerGoneError",
    "LanguageServerReplyError",
    "Loop",
    "MarkdownFrontmatterError",
    "MemorySessionStore",
    "MessageIdError",
    "MessageNotFoundError",
    "MessageWithParts",
    "MissingExtraError",
    "ModelError",
    "ModelInfo",
    "ModelNotFoundError",
    "ModelRequest",
    "ModelResolver",
    "NoAnswer",
    "NoLoopError",
    "NoResponderError",
    "NonLoopbackRequestError",
    "NotRegularFile",
    "OpenCodeDatabaseError",
    "OpenCodeSessionNotFoundError",
    "Part",
    "PartShapeError",
    "PatchError",
    "Permission",
    "PermissionConfigError",
    "PermissionFlow",
    "PermissionRefusedError",
    "Processor",
    "Project",
    "ProjectInfo",
    "ProjectService",
    "PromptContainer",
    "PromptFileMissingError",
    "PromptRequest",
    "QuestionDismissedError",
    "RateLimitedError",
    "Refuser",
    "Reject",
    "RejectedError",
    "ResolvedTurn",
    "Rule",
    "Ruleset",
    "Runtime",
    "RuntimeOptions",
    "RuntimeOptionsError",
    "SandboxSettingError",
    "SchemaTooNewError",
    "ScriptError",
    "ScriptExhaustedError",
    "SearchError",
    "ServerError",
    "ServerNotListeningError",
    "Session",
    "SessionBusyError",
    "SessionExistsError",
    "SessionLoop",
    "SessionNotFoundError",
    "SessionService",
    "SessionStore",
    "SkillInfo",
    "SkillService",
    "Skills",
    "SqliteSessionStore",
    "StepEnd",
    "StorageDamagedError",
    "StorageError",
    "StorageFullError",
    "StorageLockedError",
    "StorageReadOnlyError",
    "StoreClosedError",
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
    "TooManySecretFilesError",
    "ToolDefinitionError",
    "ToolFailure",
    "TransportError",
    "TurnChoice",
    "TurnEnd",
    "UrlFetchError",
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AgentInfo": "strata_core.context.agent",
        "AgentInput": "strata_core.engine.prompt_input",
        "AgentNotFoundError": "strata_core.engine.turn_targets",
        "AgentService": "strata_core.context.agent",
        "Agents": "strata_core.context.agent",
        "Approval": "strata_core.permission.approval",
        "Approver": "strata_core.permission.approval",
        "AssembledSystemPrompt": "strata_core.prompt.system",
        "AssistantMessage": "strata_core.message",
        "AttachmentError": "strata_core.engine.attachment",
        "AuthenticationError": "strata_core.llm.errors",
        "BadResponseError": "strata_core.llm.errors",
        "Bus": "strata_core.bus",
        "BusApprover": "strata_core.permission.bus_approver",
        "ChangedWhileOpening": "strata_core.tool.support.confined_file",
        "Clock": "strata_core.clock",
        "CommandNotFoundError": "strata_core.context.command",
        "Config": "strata_core.config.service",
        "ConfigBlocks": "strata_core.config.schema",
        "ConfigError": "strata_core.config.errors",
        "ConfigInfo": "strata_core.config.service",
        "ConfigService": "strata_core.config.service",
        "ConfigValueError": "strata_core.config.errors",
        "ContextOverflowError": "strata_core.llm.errors",
        "CoreContainer": "strata_core.container",
        "CorrectedError": "strata_core.permission.rules",
        "DefaultAgentError": "strata_core.context.agent",
        "DeniedError": "strata_core.permission.rules",
        "EditMatchError": "strata_core.tool.support.edit_match",
        "ExportFormatError": "strata_core.session.export",
        "FileInput": "strata_core.engine.prompt_input",
        "FrozenClock": "strata_core.clock",
        "Ids": "strata_core.ids",
        "ImageFitError": "strata_core.image_fit",
        "Instruction": "strata_core.context.instruction",
        "InstructionBlock": "strata_core.context.instruction",
        "InstructionFailure": "strata_core.context.instruction",
        "InstructionService": "strata_core.context.instruction",
        "InstructionSet": "strata_core.context.instruction",
        "JsonNestingError": "strata_core.json_text",
        "LanguageServerGoneError": "strata_core.lsp.jsonrpc",
        "LanguageServerReplyError": "strata_core.lsp.jsonrpc",
        "LanguageModel": "strata_core.llm",
        "Loop": "strata_core.engine.loop_services",
        "MarkdownFrontmatterError": "strata_core.markdown",
        "MemorySessionStore": "strata_core.session.memory_store",
        "MessageIdError": "strata_core.engine.prompt_input",
        "MessageNotFoundError": "strata_core.session.service",
        "MessageWithParts": "strata_core.message",
        "MissingExtraError": "strata_core.errors",
        "ModelError": "strata_core.llm.errors",
        "ModelInfo": "strata_core.llm",
        "ModelNotFoundError": "strata_core.llm.model",
        "ModelRequest": "strata_core.llm",
        "ModelResolver": "strata_core.llm",
        "NoAnswer": "strata_core.permission.approval",
        "NoLoopError": "strata_core.engine.subagent",
        "NoResponderError": "strata_core.permission.rules",
        "NonLoopbackRequestError": "strata_core.http",
        "NotRegularFile": "strata_core.tool.support.confined_file",
        "OpenCodeDatabaseError": "strata_core.session.opencode_db",
        "OpenCodeSessionNotFoundError": "strata_core.session.opencode_db",
        "Part": "strata_core.message",
        "PartShapeError": "strata_core.serialization",
        "PatchError": "strata_core.tool.support.patch",
        "Permission": "strata_core.permission.flow",
        "PermissionConfigError": "strata_core.permission.rules",
        "PermissionFlow": "strata_core.permission.flow",
        "PermissionRefusedError": "strata_core.permission.rules",
        "Processor": "strata_core.engine.processor",
        "Project": "strata_core.project",
        "ProjectInfo": "strata_core.project",
        "ProjectService": "strata_core.project",
        "PromptContainer": "strata_core.container",
        "PromptFileMissingError": "strata_core.texts",
        "PromptRequest": "strata_core.engine.prompt_input",
        "QuestionDismissedError": "strata_core.tool.builtin.plan_exit",
        "RateLimitedError": "strata_core.llm.errors",
        "Refuser": "strata_core.permission.approval",
        "Reject": "strata_core.permission.approval",
        "RejectedError": "strata_core.permission.rules",
        "ResolvedTurn": "strata_core.engine.loop",
        "Rule": "strata_core.permission.rules",
        "Ruleset": "strata_core.permission.rules",
        "Runtime": "strata_core.runtime",
        "RuntimeOptions": "strata_core.runtime",
        "RuntimeOptionsError": "strata_core.runtime",
        "SandboxSettingError": "strata_core.sandbox.settings",
        "SchemaTooNewError": "strata_core.session.migrations",
        "ScriptError": "strata_core.testing.script",
        "ScriptExhaustedError": "strata_core.testing.script",
        "SearchError": "strata_core.tool.support.search",
        "ServerError": "strata_core.llm.errors",
        "Session": "strata_core.session.session",
        "SessionBusyError": "strata_core.session.lease",
        "SessionExistsError": "strata_core.session.service",
        "SessionLoop": "strata_core.engine.loop",
        "SessionNotFoundError": "strata_core.session.store",
        "SessionService": "strata_core.session.service",
        "SessionStore": "strata_core.session.store",
        "SkillInfo": "strata_core.context.skill",
        "SkillService": "strata_core.context.skill",
        "Skills": "strata_core.context.skill",
        "SqliteSessionStore": "strata_core.session.sqlite_store",
        "StepEnd": "strata_core.engine.processor",
        "StorageDamagedError": "strata_core.session.storage_errors",
        "StorageError": "strata_core.session.storage_errors",
        "StorageFullError": "strata_core.session.storage_errors",
        "StorageLockedError": "strata_core.session.storage_errors",
        "StorageReadOnlyError": "strata_core.session.storage_errors",
        "StoreClosedError": "strata_core.session.store",
        "StrataError": "strata_core.errors",
        "StrataPaths": "strata_core.config.paths",
        "StreamEvent": "strata_core.llm",
        "SubtaskInput": "strata_core.engine.prompt_input",
        "SystemClock": "strata_core.clock",
        "SystemPrompt": "strata_core.prompt.system",
        "SystemPromptRequest": "strata_core.prompt.system",
        "SystemPromptService": "strata_core.prompt.system",
        "TextInput": "strata_core.engine.prompt_input",
        "TitleModel": "strata_core.engine.title",
        "TooManySecretFilesError": "strata_core.sandbox.masks",
        "ToolDefinitionError": "strata_core.tool.schema",
        "ToolFailure": "strata_core.tool.contract",
        "ServerNotListeningError": "strata_core.llm.errors",
        "TransportError": "strata_core.llm.errors",
        "TurnChoice": "strata_core.engine.loop",
        "TurnEnd": "strata_core.engine.loop_services",
        "UrlFetchError": "strata_core.context.instruction_urls",
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
    },
)
