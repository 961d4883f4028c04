"""What a session's turns changed on disk, and taking it back: `/session/{id}/diff`, `/revert`, `/unrevert`.

OpenCode's TUI reads the diff after every turn and offers undo (revert from a message) and redo (unrevert).
`/diff` answers the files of one turn (`messageID`); without one it answers `[]`, as OpenCode 1.18.33's
`SessionSummary.diff` does (clients get the whole session's files from the `session.diff` event instead).
A revert over files edited outside the agent answers 409 `RevertConflictError` naming them (nothing was
changed); `?force=true` reverts anyway. A turn running in the session answers 409 `SessionBusyError`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.session import session_data
from strata_server.routes.sessions import session_id
from strata_server.state import server_state


def _forced(request: Request) -> bool:
    return request.query_params.get("force", "").lower() in ("1", "true", "yes")


async def diff(request: Request) -> JSONResponse:
    state = server_state(request)
    message_id = request.query_params.get("messageID") or None
    if message_id is None:
        await state.runtime.sessions.get(session_id(request))  # an unknown session still answers 404
        return JSONResponse([])
    diffs = await state.runtime.sessions.diff(session_id(request), message_id)
    return JSONResponse([change.to_json() for change in diffs])


async def revert(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "session.revert")
    await state.turns.after_abort(session_id(request))
    info = await state.runtime.sessions.revert(
        session_id(request), body["messageID"], body.get("partID"), force=_forced(request)
    )
    return JSONResponse(session_data(info))


async def unrevert(request: Request) -> JSONResponse:
    state = server_state(request)
    await state.turns.after_abort(session_id(request))
    info = await state.runtime.sessions.unrevert(session_id(request), force=_forced(request))
    return JSONResponse(session_data(info))


ROUTES = [
    Route("/session/{sessionID}/diff", diff, methods=["GET"]),
    Route("/session/{sessionID}/revert", revert, methods=["POST"]),
    Route("/session/{sessionID}/unrevert", unrevert, methods=["POST"]),
]
