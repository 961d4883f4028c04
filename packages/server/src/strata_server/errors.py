"""The API's errors: OpenCode's JSON shape `{"name": ..., "data": {"message": ...}}`, with the right status
(and for a busy session OpenCode's `{"_tag": "SessionBusyError", "sessionID", "message"}`).

Handlers raise `ApiError` (or let a core error through); `error_response` turns both into a response. A
failure nobody expected is logged with its traceback and answered as `UnknownError` (500) with its message,
never a stack trace on the wire. The session database failing (`StorageError`) is answered under its own name:
507 for a full disk, 503 for a read-only or locked one, 500 for a damaged file, with the store's message.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from strata_core import llm
from strata_core.config import CredentialsError
from strata_core.engine import AgentNotFoundError, MessageIdError, NothingToCompactError
from strata_core.errors import StrataError
from strata_core.logging import get_logger
from strata_core.session import (
    DatabaseUnavailableError,
    MessageNotFoundError,
    RecordOwnerError,
    RevertConflictError,
    SessionBusyError,
    SessionNotFoundError,
    StorageDamagedError,
    StorageError,
    StorageFullError,
    StorageLockedError,
    StorageReadOnlyError,
)

log = get_logger(__name__)


class ApiError(StrataError):
    """A request the API refuses: `status`, OpenCode's error `name`, a message saying what and how to fix it."""

    def __init__(
        self, status: int, name: str, message: str, *, body: dict[str, Any] | None = None, **data: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.name = name
        self.message = message
        self.data = data
        self.body = body
        """The whole JSON body, for an error OpenCode shapes otherwise (its `SessionBusyError`)."""


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message, kind="Payload")


def not_found(message: str) -> ApiError:
    return ApiError(404, "NotFoundError", message)


def error_body(name: str, message: str, **data: Any) -> dict[str, Any]:
    return {"name": name, "data": {"message": message, **data}}


def json_error(error: ApiError, headers: dict[str, str] | None = None) -> JSONResponse:
    body = error.body if error.body is not None else error_body(error.name, error.message, **error.data)
    return JSONResponse(body, error.status, headers=headers)


def as_api_error(error: Exception) -> ApiError:
    """The API error for an exception a handler let through: the core's lookups are the client's mistakes."""
    if isinstance(error, ApiError):
        return error
    if isinstance(error, SessionNotFoundError | MessageNotFoundError):
        return not_found(str(error))
    if isinstance(error, AgentNotFoundError | llm.ModelNotFoundError | MessageIdError | RecordOwnerError):
        return bad_request(str(error))
    if isinstance(error, NothingToCompactError):  # `/summarize` of an empty session
        return bad_request(str(error))
    if isinstance(error, SessionBusyError):
        # A turn (this server's, or a `strata run -s`) is writing the session: the client may try again later.
        body = {"_tag": "SessionBusyError", "sessionID": error.session_id, "message": str(error)}
        return ApiError(409, "SessionBusyError", str(error), body=body)
    if isinstance(error, RevertConflictError):
        # Files edited outside the agent: nothing was reverted; `?force=true` reverts over them.
        message = f"{error} To force it, send the request again with ?force=true."
        return ApiError(409, "RevertConflictError", message, files=list(error.files))
    if isinstance(error, StorageError):
        return storage_api_error(error)
    if isinstance(error, CredentialsError):
        # A broken auth.json: the message names the file and the fix; nothing a retry can change.
        return ApiError(500, "CredentialsError", str(error), path=str(error.path))
    if isinstance(error, DatabaseUnavailableError):
        # The shared PostgreSQL database is away, its pool full or a statement too slow: the client may try again.
        return ApiError(503, "DatabaseUnavailableError", str(error))
    return ApiError(500, "UnknownError", f"{type(error).__name__}: {error}")


STORAGE_STATUS: dict[type[StorageError], int] = {
    StorageFullError: 507,  # Insufficient Storage: free space where the database lives
    StorageReadOnlyError: 503,  # the server cannot write until the permissions or the mount are fixed
    StorageLockedError: 503,  # another process holds the database: the client may try again
    StorageDamagedError: 500,  # the file needs moving aside: nothing a retry can change
}


def storage_api_error(error: StorageError) -> ApiError:
    """The session database failing underneath: its own name and status, its message naming the file and the
    fix (the failed transaction was rolled back whole, so nothing partial was stored)."""
    status = STORAGE_STATUS.get(type(error), 500)
    return ApiError(status, type(error).__name__, str(error), path=str(error.path))


async def error_response(request: Request, error: Exception) -> Response:
    api_error = as_api_error(error)
    if isinstance(error, StorageError | CredentialsError):  # the disk or a file, not a defect: no traceback
        log.warning("server.storage_failed", path=request.url.path, status=api_error.status, error=str(error))
    elif api_error.status >= 500:
        log.error("server.request_failed", path=request.url.path, exc_info=error)
    return json_error(api_error)
