"""The errors a caller of Strata can catch: one root, `StrataError`, and every class below it.

Every exception class defined in strata-core, strata-providers, strata-server and strata-cli derives from
`StrataError`, so `except StrataError` catches every failure Strata raises on purpose, and a bug (a
`TypeError`, a `KeyError`) is never one. A class may keep a second base (in brackets below: stdlib's, or
httpx's) for `except` clauses that predate the tree (`except LookupError` still catches `SessionNotFoundError`).

The classes live beside the concept they belong to (their module is on the right); the core's are
re-exported here too (`from strata_core.errors import SessionNotFoundError`), loaded when first asked for, so
this module imports nothing of Strata and every other module can import it. The tree (kept true by
`tests/core/test_error_tree.py`):

* StrataError
  # The user's configuration: a file, a value or a setting is wrong; the message says where (file, line,
  # key) and what would be right.
  - ConfigError                                         strata_core.config.errors
    - CommandNotFoundError                              strata_core.context.command
    - DefaultAgentError                                 strata_core.context.agent
  - ConfigValueError [ValueError]                       strata_core.config.errors
  - PermissionConfigError [ValueError]                  strata_core.permission.rules
  - SandboxSettingError [ValueError]                    strata_core.sandbox.settings
  - MarkdownFrontmatterError [ValueError]               strata_core.markdown
  - PromptFileMissingError [FileNotFoundError]          strata_core.texts
  - RuntimeOptionsError                                 strata_core.runtime
  # Models: which model a turn names, and what its provider answered.
  - ModelNotFoundError                                  strata_core.llm.model
  - ModelError                                          strata_core.llm.errors
    - AuthenticationError                               strata_core.llm.errors
    - RateLimitedError                                  strata_core.llm.errors
    - ContextOverflowError                              strata_core.llm.errors
    - ServerError                                       strata_core.llm.errors
    - TransportError                                    strata_core.llm.errors
    - BadResponseError                                  strata_core.llm.errors
  - ModelsDevError                                      strata_providers.models_dev
  # What a turn is asked to do: its agent, its message ids, its attachments and instruction URLs.
  - AgentNotFoundError [LookupError]                    strata_core.engine.turn_targets
  - MessageIdError [ValueError]                         strata_core.engine.prompt_input
  - AttachmentError [ValueError]                        strata_core.engine.attachment
  - ImageFitError [ValueError]                          strata_core.image_fit
  - UrlFetchError                                       strata_core.context.instruction_urls
  # Permissions: a tool call that may not go ahead. Tools let these propagate; the runner turns them into the
  # error result the model sees, and a person's no (or nobody there to say yes) also stops the turn.
  - PermissionRefusedError                              strata_core.permission.rules
    - DeniedError                                       strata_core.permission.rules
    - RejectedError                                     strata_core.permission.rules
      - QuestionDismissedError                          strata_core.tool.builtin.plan_exit
    - CorrectedError                                    strata_core.permission.rules
    - NoResponderError                                  strata_core.permission.rules
  # Tools: a failure the model is told about (`ToolFailure`, and what the tools' helpers raise), or a tool
  # that is defined wrong (the embedder's mistake).
  - ToolFailure                                         strata_core.tool.contract
    - ChangedWhileOpening                               strata_core.tool.support.confined_file
    - NotRegularFile                                    strata_core.tool.support.confined_file
  - EditMatchError [ValueError]                         strata_core.tool.support.edit_match
  - PatchError [ValueError]                             strata_core.tool.support.patch
  - SearchError                                         strata_core.tool.support.search
  - TooManySecretFilesError                             strata_core.sandbox.masks
  - ToolDefinitionError                                 strata_core.tool.schema
  # Sessions: a session or message that is not there (or already is), a session another turn is writing,
  # the stores and files that hold them, and the database failing underneath (`StorageError`: a full disk, a
  # read-only file, a lock held too long, a damaged file; the failed write is rolled back whole).
  - SessionNotFoundError [LookupError]                  strata_core.session.store
  - MessageNotFoundError [LookupError]                  strata_core.session.service
  - SessionExistsError [ValueError]                     strata_core.session.service
  - SessionBusyError [RuntimeError]                     strata_core.session.lease
  - StoreClosedError [RuntimeError]                     strata_core.session.store
  - SchemaTooNewError [RuntimeError]                    strata_core.session.migrations
  - StorageError                                        strata_core.session.storage_errors
    - StorageFullError                                  strata_core.session.storage_errors
    - StorageReadOnlyError                              strata_core.session.storage_errors
    - StorageLockedError                                strata_core.session.storage_errors
    - StorageDamagedError                               strata_core.session.storage_errors
  - ExportFormatError [ValueError]                      strata_core.session.export
  - OpenCodeDatabaseError [RuntimeError]                strata_core.session.opencode_db
  - OpenCodeSessionNotFoundError [LookupError]          strata_core.session.opencode_db
  # Data that does not fit: JSON nested too deeply, a part in a shape Strata cannot store.
  - JsonNestingError [ValueError]                       strata_core.json_text
  - PartShapeError [ValueError]                         strata_core.serialization
  # The runtime and its HTTP client: a runtime used after closing, a task run outside a runtime, a request the
  # test guard refused.
  - RuntimeClosedError [RuntimeError]                   strata_providers.runtime
  - NoLoopError                                         strata_core.engine.subagent
  # A feature whose optional dependencies are not installed: the message names the extra to install.
  - MissingExtraError                                   strata_core.errors
  - NonLoopbackRequestError [httpx.TransportError]      strata_core.http
  # The applications: what the CLI detects itself (its message is the paragraph shown), what the API refuses
  # (an HTTP status and OpenCode's error name), and the server's own settings and start.
  - CliError                                            strata_cli.errors
    - UnknownSlashCommandError [ValueError]             strata_cli.slash
  - ApiError                                            strata_server.errors
  - ServerSettingsError [ValueError]                    strata_server.settings
  - ServerStartError [OSError]                          strata_server.server
  # The scripted model for tests: a script written wrong, or a test that made more model calls than it planned
  # (an `AssertionError` too, so the engine lets it through as the test's failure).
  - ScriptError [ValueError]                            strata_core.testing.script
  - ScriptExhaustedError [AssertionError]               strata_core.testing.script
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from strata_core.config.errors import ConfigError, ConfigValueError
    from strata_core.context.agent import DefaultAgentError
    from strata_core.context.command import CommandNotFoundError
    from strata_core.context.instruction_urls import UrlFetchError
    from strata_core.engine.attachment import AttachmentError
    from strata_core.engine.prompt_input import MessageIdError
    from strata_core.engine.subagent import NoLoopError
    from strata_core.engine.turn_targets import AgentNotFoundError
    from strata_core.http import NonLoopbackRequestError
    from strata_core.image_fit import ImageFitError
    from strata_core.json_text import JsonNestingError
    from strata_core.llm.errors import (
        AuthenticationError,
        BadResponseError,
        ContextOverflowError,
        ModelError,
        RateLimitedError,
        ServerError,
        TransportError,
    )
    from strata_core.llm.model import ModelNotFoundError
    from strata_core.markdown import MarkdownFrontmatterError
    from strata_core.permission.rules import (
        CorrectedError,
        DeniedError,
        NoResponderError,
        PermissionConfigError,
        PermissionRefusedError,
        RejectedError,
    )
    from strata_core.runtime import RuntimeOptionsError
    from strata_core.sandbox.masks import TooManySecretFilesError
    from strata_core.sandbox.settings import SandboxSettingError
    from strata_core.serialization import PartShapeError
    from strata_core.session.export import ExportFormatError
    from strata_core.session.lease import SessionBusyError
    from strata_core.session.migrations import SchemaTooNewError
    from strata_core.session.opencode_db import OpenCodeDatabaseError, OpenCodeSessionNotFoundError
    from strata_core.session.service import MessageNotFoundError, SessionExistsError
    from strata_core.session.storage_errors import (
        StorageDamagedError,
        StorageError,
        StorageFullError,
        StorageLockedError,
        StorageReadOnlyError,
    )
    from strata_core.session.store import SessionNotFoundError, StoreClosedError
    from strata_core.testing.script import ScriptError, ScriptExhaustedError
    from strata_core.texts import PromptFileMissingError
    from strata_core.tool.builtin.plan_exit import QuestionDismissedError
    from strata_core.tool.contract import ToolFailure
    from strata_core.tool.schema import ToolDefinitionError
    from strata_core.tool.support.confined_file import ChangedWhileOpening, NotRegularFile
    from strata_core.tool.support.edit_match import EditMatchError
    from strata_core.tool.support.patch import PatchError
    from strata_core.tool.support.search import SearchError


class StrataError(Exception):
    """An expected failure, with a message meant for the person or program that caused it."""


class MissingExtraError(StrataError):
    """A feature needs an optional part of strata-core that is not installed; the message names the extra.

    `MissingExtraError("the bash tool's command parsing", "bash", "tree-sitter")` reads "the bash tool's command
    parsing needs tree-sitter: pip install 'strata-core[bash]'".
    """

    def __init__(self, feature: str, extra: str, needs: str) -> None:
        super().__init__(f"{feature} needs {needs}: pip install 'strata-core[{extra}]'")
        self.feature = feature
        self.extra = extra
        """The extra to install, e.g. "mcp"."""
        self.needs = needs
        """The missing distribution(s), as the message names them."""

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.feature, self.extra, self.needs))


_HOMES: dict[str, str] = {
    "AgentNotFoundError": "strata_core.engine.turn_targets",
    "AttachmentError": "strata_core.engine.attachment",
    "AuthenticationError": "strata_core.llm.errors",
    "BadResponseError": "strata_core.llm.errors",
    "ChangedWhileOpening": "strata_core.tool.support.confined_file",
    "CommandNotFoundError": "strata_core.context.command",
    "ConfigError": "strata_core.config.errors",
    "ConfigValueError": "strata_core.config.errors",
    "ContextOverflowError": "strata_core.llm.errors",
    "CorrectedError": "strata_core.permission.rules",
    "DefaultAgentError": "strata_core.context.agent",
    "DeniedError": "strata_core.permission.rules",
    "EditMatchError": "strata_core.tool.support.edit_match",
    "ExportFormatError": "strata_core.session.export",
    "ImageFitError": "strata_core.image_fit",
    "JsonNestingError": "strata_core.json_text",
    "MarkdownFrontmatterError": "strata_core.markdown",
    "MessageIdError": "strata_core.engine.prompt_input",
    "MessageNotFoundError": "strata_core.session.service",
    "ModelError": "strata_core.llm.errors",
    "ModelNotFoundError": "strata_core.llm.model",
    "NoLoopError": "strata_core.engine.subagent",
    "NoResponderError": "strata_core.permission.rules",
    "NonLoopbackRequestError": "strata_core.http",
    "NotRegularFile": "strata_core.tool.support.confined_file",
    "OpenCodeDatabaseError": "strata_core.session.opencode_db",
    "OpenCodeSessionNotFoundError": "strata_core.session.opencode_db",
    "PartShapeError": "strata_core.serialization",
    "PatchError": "strata_core.tool.support.patch",
    "PermissionConfigError": "strata_core.permission.rules",
    "PermissionRefusedError": "strata_core.permission.rules",
    "PromptFileMissingError": "strata_core.texts",
    "QuestionDismissedError": "strata_core.tool.builtin.plan_exit",
    "RateLimitedError": "strata_core.llm.errors",
    "RejectedError": "strata_core.permission.rules",
    "RuntimeOptionsError": "strata_core.runtime",
    "SandboxSettingError": "strata_core.sandbox.settings",
    "SchemaTooNewError": "strata_core.session.migrations",
    "ScriptError": "strata_core.testing.script",
    "ScriptExhaustedError": "strata_core.testing.script",
    "SearchError": "strata_core.tool.support.search",
    "ServerError": "strata_core.llm.errors",
    "SessionBusyError": "strata_core.session.lease",
    "SessionExistsError": "strata_core.session.service",
    "SessionNotFoundError": "strata_core.session.store",
    "StorageDamagedError": "strata_core.session.storage_errors",
    "StorageError": "strata_core.session.storage_errors",
    "StorageFullError": "strata_core.session.storage_errors",
    "StorageLockedError": "strata_core.session.storage_errors",
    "StorageReadOnlyError": "strata_core.session.storage_errors",
    "StoreClosedError": "strata_core.session.store",
    "TooManySecretFilesError": "strata_core.sandbox.masks",
    "ToolDefinitionError": "strata_core.tool.schema",
    "ToolFailure": "strata_core.tool.contract",
    "TransportError": "strata_core.llm.errors",
    "UrlFetchError": "strata_core.context.instruction_urls",
}
"""Where each of the core's errors lives (the tree above, which the test holds to it), for the re-exports."""


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


__all__ = [
    "AgentNotFoundError",
    "AttachmentError",
    "AuthenticationError",
    "BadResponseError",
    "ChangedWhileOpening",
    "CommandNotFoundError",
    "ConfigError",
    "ConfigValueError",
    "ContextOverflowError",
    "CorrectedError",
    "DefaultAgentError",
    "DeniedError",
    "EditMatchError",
    "ExportFormatError",
    "ImageFitError",
    "JsonNestingError",
    "MarkdownFrontmatterError",
    "MessageIdError",
    "MessageNotFoundError",
    "MissingExtraError",
    "ModelError",
    "ModelNotFoundError",
    "NoLoopError",
    "NoResponderError",
    "NonLoopbackRequestError",
    "NotRegularFile",
    "OpenCodeDatabaseError",
    "OpenCodeSessionNotFoundError",
    "PartShapeError",
    "PatchError",
    "PermissionConfigError",
    "PermissionRefusedError",
    "PromptFileMissingError",
    "QuestionDismissedError",
    "RateLimitedError",
    "RejectedError",
    "RuntimeOptionsError",
    "SandboxSettingError",
    "SchemaTooNewError",
    "ScriptError",
    "ScriptExhaustedError",
    "SearchError",
    "ServerError",
    "SessionBusyError",
    "SessionExistsError",
    "SessionNotFoundError",
    "StorageDamagedError",
    "StorageError",
    "StorageFullError",
    "StorageLockedError",
    "StorageReadOnlyError",
    "StoreClosedError",
    "StrataError",
    "TooManySecretFilesError",
    "ToolDefinitionError",
    "ToolFailure",
    "TransportError",
    "UrlFetchError",
]
