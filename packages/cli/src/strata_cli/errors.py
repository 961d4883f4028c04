"""What a person reads when something fails: one clear paragraph on stderr and a non-zero exit, never a traceback.

Expected failures (bad config, unknown agent or model, missing key, unreachable server, a permission nobody
can answer) are recognised by class name along the exception's MRO rather than by importing the classes: the
module that raised them is already loaded, and `errors` itself stays importable without the core. Anything
else is a defect: a short note says so, and the traceback goes to a crash file (or to stderr with
STRATA_DEBUG=1).
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

from strata_core.errors import StrataError
from strata_core.redaction import redact_text

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

LOCAL_SERVER_EXAMPLE = (
    'Or use a local OpenAI-compatible server, with no key: {"provider": {"local": {"npm": '
    '"@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:8080/v1"}, "models": {"my-model": '
    '{}}}}, "model": "local/my-model"} in strata.json (or opencode.json), then `strata run -m local/my-model ...`.'
)


class CliError(StrataError):
    """An expected failure the CLI detects itself; its message is the paragraph shown."""

    def __init__(self, message: str, *, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


# Exceptions whose message is already the paragraph a person needs (the core and providers write them so).
_SELF_EXPLAINING = frozenset(
    {
        "CliError",
        "ConfigError",
        "PermissionConfigError",
        "FrontmatterError",
        "MarkdownError",
        "ModelNotFoundError",
        "ServerNotListeningError",
        "AgentNotFoundError",
        "SessionNotFoundError",
        "SessionBusyError",
        "SkillError",
        "NoResponderError",
        "DeniedError",
        "RejectedError",
        "CorrectedError",
        "ExportFormatError",
        "SessionExistsError",
        "OpenCodeDatabaseError",
        "OpenCodeSessionNotFoundError",
        "MessageNotFoundError",
        "StorageError",
        "DatabaseUrlError",
        "DatabaseUnavailableError",
        "SchemaTooNewError",
        "RevertConflictError",
        "SnapshotError",
        "McpRequestError",
    }
)


def _class_names(exc: BaseException) -> list[str]:
    return [cls.__name__ for cls in type(exc).__mro__]


def _leaf(exc: BaseException) -> BaseException:
    """The one real failure inside nested exception groups (task groups wrap what their tasks raise)."""
    while isinstance(exc, BaseExceptionGroup):
        real = [e for e in exc.exceptions if not _is_cancellation(e)]
        if len(real) != 1:
            return exc
        exc = real[0]
    return exc


def _is_cancellation(exc: BaseException) -> bool:
    return "CancelledError" in _class_names(exc) or isinstance(exc, KeyboardInterrupt)


def _with_local_example(message: str, names: list[str]) -> str:
    """A missing-key error also shows a local server setup: it is the way to start without any key."""
    if "ModelNotFoundError" in names and "apiKey" in message and "baseURL" not in message:
        return f"{message}\n{LOCAL_SERVER_EXAMPLE}"
    return message


def _model_error_paragraph(exc: BaseException, names: list[str]) -> str:
    message = str(exc).rstrip(".")
    if "AuthenticationError" in names:
        return (
            f"The model provider refused the request: {message}. Check the API key: set the provider's "
            "environment variable (for example OPENAI_API_KEY or ANTHROPIC_API_KEY) or `options.apiKey` in "
            "its `provider` entry of strata.json / opencode.json."
        )
    if "TransportError" in names:
        return (
            f"Could not reach the model server: {message}. Is the server running, and is the provider's "
            "`options.baseURL` in strata.json / opencode.json right?"
        )
    if "RateLimitedError" in names:
        return f"The model provider is rate limiting requests: {message}. Wait a little and try again."
    return f"The model request failed: {message}."


def describe(exc: BaseException) -> tuple[str, int] | None:
    """The paragraph and exit code for an expected failure, or None for a defect."""
    exc = _leaf(exc)
    names = _class_names(exc)
    if isinstance(exc, CliError):
        return exc.message, exc.exit_code
    if any(name in _SELF_EXPLAINING for name in names):
        return _with_local_example(str(exc).strip(), names), EXIT_FAILURE
    if "ModelError" in names:
        return _model_error_paragraph(exc, names), EXIT_FAILURE
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"Cannot use {exc.filename}: {exc.strerror or exc}.", EXIT_FAILURE
    if isinstance(exc, KeyboardInterrupt):
        return "Interrupted.", EXIT_INTERRUPTED
    return None


def name_and_paragraph(exc: BaseException) -> tuple[str, str]:
    """What ended a run, for `--format json`: the failure's class name and the paragraph `report` prints."""
    leaf = _leaf(exc)
    described = describe(exc)
    if described is not None:
        return type(leaf).__name__, described[0]
    return type(
        leaf
    ).__name__, f"Strata hit an unexpected internal error ({type(leaf).__name__}: {leaf}). This is a bug."


def _crash_file(exc: BaseException) -> Path | None:
    """Writes the traceback under the state dir so a bug report can include it; None if that fails."""
    try:
        from strata_core.config import StrataPaths

        folder = StrataPaths.from_env().state / "crash"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.txt"
        path.write_text(redact_text("".join(traceback.format_exception(exc))), encoding="utf-8")
        return path
    except Exception:
        return None


def report(exc: BaseException, *, debug: bool = False) -> int:
    """Print the failure as one paragraph on stderr and return the exit code to use."""
    described = describe(exc)
    if described is not None:
        message, code = described
        print(redact_text(f"Error: {message}"), file=sys.stderr)
        return code
    if debug:
        print(redact_text("".join(traceback.format_exception(exc))), end="", file=sys.stderr)
        return EXIT_INTERNAL
    leaf = _leaf(exc)
    where = _crash_file(exc)
    saved = f" The traceback was saved to {where}." if where else ""
    print(
        redact_text(
            f"Error: Strata hit an unexpected internal error ({type(leaf).__name__}: {leaf}). This is a bug.{saved} "
            "Set STRATA_DEBUG=1 to print the traceback."
        ),
        file=sys.stderr,
    )
    return EXIT_INTERNAL
