"""Strata core: the agent-session services, the turn loop and the tools, with no terminal and no wires.

The public API is what this module re-exports, the error tree of `strata_core.errors` included (every error
the core raises on purpose, importable from here). Names load on first use, so importing one service (or
`strata --help`) does not pay for the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import by_module, lazy_exports

if TYPE_CHECKING:
    from strata_core.bus import Bus
    from strata_core.clock import Clock, FrozenClock, SystemClock
    from strata_core.config.credentials import CredentialsError
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
    from strata_core.engine.compaction import NothingToCompactError
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
    from strata_core.mcp.requests import McpRequestError
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
    from strata_core.session.database_url import DatabaseUnavailableError, DatabaseUrlError
    from strata_core.session.export import ExportFormatError
    from strata_core.session.lease import SessionBusyError
    from strata_core.session.memory_store import MemorySessionStore
    from strata_core.session.migrations import SchemaTooNewError
    from strata_core.session.opencode_db import OpenCodeDatabaseError, OpenCodeSessionNotFoundError
    from strata_core.session.record_ids import ImportIdsTakenError
    from strata_core.session.revert import RevertConflictError
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
    from strata_core.session.store import RecordOwnerError, SessionNotFoundError, SessionStore, StoreClosedError
    from strata_core.snapshot.git_snapshot import SnapshotError
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
    "CredentialsError",
    "DatabaseUnavailableError",
    "DatabaseUrlError",
    "DefaultAgentError",
    "DeniedError",
    "EditMatchError",
    "ExportFormatError",
    "FileInput",
    "FrozenClock",
    "Ids",
    "ImageFitError",
    "ImportIdsTakenError",
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
    "McpRequestError",
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
    "NothingToCompactError",
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
    "RecordOwnerError",
    "Refuser",
    "Reject",
    "RejectedError",
    "ResolvedTurn",
    "RevertConflictError",
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
    "SnapshotError",
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
    by_module(
        {
            "strata_core.bus": ("Bus",),
            "strata_core.clock": ("Clock", "FrozenClock", "SystemClock"),
            "strata_core.config.credentials": ("CredentialsError",),
            "strata_core.config.errors": ("ConfigError", "ConfigValueError"),
            "strata_core.config.paths": ("StrataPaths",),
            "strata_core.config.schema": ("ConfigBlocks",),
            "strata_core.config.service": ("Config", "ConfigInfo", "ConfigService"),
            "strata_core.config.structure": ("structure_config",),
            "strata_core.container": ("CoreContainer", "PromptContainer"),
            "strata_core.context.agent": ("AgentInfo", "AgentService", "Agents", "DefaultAgentError"),
            "strata_core.context.command": ("CommandNotFoundError",),
            "strata_core.context.instruction": (
                "Instruction",
                "InstructionBlock",
                "InstructionFailure",
                "InstructionService",
                "InstructionSet",
                "UrlFetcher",
            ),
            "strata_core.context.instruction_urls": ("UrlFetchError",),
            "strata_core.context.skill": ("SkillInfo", "SkillService", "Skills"),
            "strata_core.engine.attachment": ("AttachmentError",),
            "strata_core.engine.compaction": ("NothingToCompactError",),
            "strata_core.engine.loop": ("ResolvedTurn", "SessionLoop", "TurnChoice"),
            "strata_core.engine.loop_services": ("Loop", "TurnEnd"),
            "strata_core.engine.processor": ("Processor", "StepEnd"),
            "strata_core.engine.prompt_input": (
                "AgentInput",
                "FileInput",
                "MessageIdError",
                "PromptRequest",
                "SubtaskInput",
                "TextInput",
            ),
            "strata_core.engine.subagent": ("NoLoopError",),
            "strata_core.engine.title": ("TitleModel",),
            "strata_core.engine.turn_targets": ("AgentNotFoundError",),
            "strata_core.errors": ("MissingExtraError", "StrataError"),
            "strata_core.history": ("filter_compacted", "to_model_messages"),
            "strata_core.http": ("NonLoopbackRequestError",),
            "strata_core.ids": ("Ids", "seeded_entropy"),
            "strata_core.image_fit": ("ImageFitError",),
            "strata_core.json_text": ("JsonNestingError",),
            "strata_core.llm": ("LanguageModel", "ModelInfo", "ModelRequest", "ModelResolver", "StreamEvent"),
            "strata_core.llm.errors": (
                "AuthenticationError",
                "BadResponseError",
                "ContextOverflowError",
                "ModelError",
                "RateLimitedError",
                "ServerError",
                "ServerNotListeningError",
                "TransportError",
            ),
            "strata_core.llm.model": ("ModelNotFoundError",),
            "strata_core.lsp.jsonrpc": ("LanguageServerGoneError", "LanguageServerReplyError"),
            "strata_core.markdown": ("MarkdownFrontmatterError",),
            "strata_core.mcp.requests": ("McpRequestError",),
            "strata_core.message": ("AssistantMessage", "MessageWithParts", "Part", "UserMessage"),
            "strata_core.permission.approval": ("Approval", "Approver", "NoAnswer", "Refuser", "Reject", "approve_all"),
            "strata_core.permission.bus_approver": ("BusApprover",),
            "strata_core.permission.flow": ("Permission", "PermissionFlow"),
            "strata_core.permission.rules": (
                "CorrectedError",
                "DeniedError",
                "NoResponderError",
                "PermissionConfigError",
                "PermissionRefusedError",
                "RejectedError",
                "Rule",
                "Ruleset",
                "evaluate",
            ),
            "strata_core.project": ("Project", "ProjectInfo", "ProjectService"),
            "strata_core.prompt.system": (
                "AssembledSystemPrompt",
                "SystemPrompt",
                "SystemPromptRequest",
                "SystemPromptService",
            ),
            "strata_core.runtime": ("Runtime", "RuntimeOptions", "RuntimeOptionsError", "open_runtime", "overrides"),
            "strata_core.sandbox.masks": ("TooManySecretFilesError",),
            "strata_core.sandbox.settings": ("SandboxSettingError",),
            "strata_core.serialization": ("PartShapeError",),
            "strata_core.session.database_url": ("DatabaseUnavailableError", "DatabaseUrlError"),
            "strata_core.session.export": ("ExportFormatError",),
            "strata_core.session.lease": ("SessionBusyError",),
            "strata_core.session.memory_store": ("MemorySessionStore",),
            "strata_core.session.migrations": ("SchemaTooNewError",),
            "strata_core.session.opencode_db": ("OpenCodeDatabaseError", "OpenCodeSessionNotFoundError"),
            "strata_core.session.record_ids": ("ImportIdsTakenError",),
            "strata_core.session.revert": ("RevertConflictError",),
            "strata_core.session.service": ("MessageNotFoundError", "SessionExistsError", "SessionService"),
            "strata_core.session.session": ("Session",),
            "strata_core.snapshot.git_snapshot": ("SnapshotError",),
            "strata_core.session.sqlite_store": ("SqliteSessionStore",),
            "strata_core.session.storage_errors": (
                "StorageDamagedError",
                "StorageError",
                "StorageFullError",
                "StorageLockedError",
                "StorageReadOnlyError",
            ),
            "strata_core.session.store": (
                "RecordOwnerError",
                "SessionNotFoundError",
                "SessionStore",
                "StoreClosedError",
            ),
            "strata_core.testing.script": ("ScriptError", "ScriptExhaustedError"),
            "strata_core.texts": ("PromptFileMissingError",),
            "strata_core.tool.builtin.plan_exit": ("QuestionDismissedError",),
            "strata_core.tool.contract": ("ToolFailure",),
            "strata_core.tool.schema": ("ToolDefinitionError",),
            "strata_core.tool.support.confined_file": ("ChangedWhileOpening", "NotRegularFile"),
            "strata_core.tool.support.edit_match": ("EditMatchError",),
            "strata_core.tool.support.patch": ("PatchError",),
            "strata_core.tool.support.search": ("SearchError",),
        }
    ),
)
