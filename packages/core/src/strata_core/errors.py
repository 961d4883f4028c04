"""The errors a caller of Strata can catch: one root, `StrataError`, and every class below it.

Every exception class defined in strata-core, strata-providers, strata-server and strata-cli derives from
`StrataError`, so `except StrataError` catches every failure Strata raises on purpose, and a bug (a
`TypeError`, a `KeyError`) is never one. A class may keep a second base (in brackets below: stdlib's, or
httpx's) for `except` clauses that predate the tree (`except LookupError` still catches `SessionNotFoundError`).

The classes live beside the concept they belong to (their module is on the right); the core's are
re-exported from the package (`from strata_core import SessionNotFoundError`), so this module imports nothing of
Strata and every other module can import it. The tree (kept true by
`tests/core/test_error_tree.py`):

* StrataError
  # The user's configuration: a file, a value or a setting is wrong; the message says where (file, line,
  # key) and what would be right.
  - ConfigError                                         strata_core.config.errors
    - CommandNotFoundError                              strata_core.context.command
    - DefaultAgentError                                 strata_core.context.agent
    - CredentialsError                                  strata_core.config.credentials
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
      - ServerNotListeningError                         strata_core.llm.errors
    - BadResponseError                                  strata_core.llm.errors
  - ModelsDevError                                      strata_providers.models_dev
  # What a turn is asked to do: its agent, its message ids, its attachments and instruction URLs.
  - AgentNotFoundError [LookupError]                    strata_core.engine.turn_targets
  - MessageIdError [ValueError]                         strata_core.engine.prompt_input
  - NothingToCompactError [ValueError]                  strata_core.engine.compaction
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
  # read-only file, a lock held too long, a damaged file; the failed write is rolled back whole; a shared
  # PostgreSQL database's URL that cannot be used, or the database not answering).
  - SessionNotFoundError [LookupError]                  strata_core.session.store
  - MessageNotFoundError [LookupError]                  strata_core.session.service
  - SessionExistsError [ValueError]                     strata_core.session.service
  - ImportIdsTakenError [ValueError]                    strata_core.session.record_ids
  - SessionBusyError [RuntimeError]                     strata_core.session.lease
  - StoreClosedError [RuntimeError]                     strata_core.session.store
  - RecordOwnerError [ValueError]                       strata_core.session.store
  - SchemaTooNewError [RuntimeError]                    strata_core.session.migrations
  - DatabaseUrlError [ValueError]                       strata_core.session.database_url
  - DatabaseUnavailableError                            strata_core.session.database_url
  - StorageError                                        strata_core.session.storage_errors
    - StorageFullError                                  strata_core.session.storage_errors
    - StorageReadOnlyError                              strata_core.session.storage_errors
    - StorageLockedError                                strata_core.session.storage_errors
    - StorageDamagedError                               strata_core.session.storage_errors
  - ExportFormatError [ValueError]                      strata_core.session.export
  - OpenCodeDatabaseError [RuntimeError]                strata_core.session.opencode_db
  - OpenCodeSessionNotFoundError [LookupError]          strata_core.session.opencode_db
  # Snapshots: a revert that would overwrite files edited outside the agent (nothing changed), and git failing
  # to record or put back files.
  - RevertConflictError                                 strata_core.session.revert
  - SnapshotError                                       strata_core.snapshot.git_snapshot
  # Data that does not fit: JSON nested too deeply, a part in a shape Strata cannot store.
  - JsonNestingError [ValueError]                       strata_core.json_text
  - PartShapeError [ValueError]                         strata_core.serialization
  # The runtime and its HTTP client: a runtime used after closing, a task run outside a runtime, a request the
  # test guard refused.
  - RuntimeClosedError [RuntimeError]                   strata_providers.runtime
  - NoLoopError                                         strata_core.engine.subagent
  # A language server that exited before it answered, or answered a request with an error (the file tools
  # carry on without its diagnostics).
  - LanguageServerGoneError                             strata_core.lsp.jsonrpc
  - LanguageServerReplyError                            strata_core.lsp.jsonrpc
  # An MCP server that answered a request with an error, a malformed result or not in time (a `/server:prompt`
  # command, a listing); the message names the server and the request.
  - McpRequestError                                     strata_core.mcp.requests
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
