"""Permission questions waiting for an answer, and answering them (OpenCode's current and deprecated routes)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.bus import PermissionReply
from strata_server.errors import not_found
from strata_server.event_shapes import permission_data
from strata_server.state import ServerState, server_state


async def pending(request: Request) -> JSONResponse:
    return JSONResponse([permission_data(p) for p in server_state(request).questions.pending()])


async def reply(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "permission.reply")
    _answer(state, str(request.path_params["requestID"]), body["reply"], body.get("message"))
    return JSONResponse(True)


async def respond(request: Request) -> JSONResponse:
    """The deprecated per-session route: `{response}` instead of `{reply}`."""
    state = server_state(request)
    body = await state.body(request, "permission.respond")
    await state.runtime.sessions.get(str(request.path_params["sessionID"]))
    _answer(state, str(request.path_params["permissionID"]), body["response"], None)
    return JSONResponse(True)


def _answer(state: ServerState, request_id: str, answer: PermissionReply, message: str | None) -> None:
    questions = state.questions
    if all(p.id != request_id for p in questions.pending()):
        if state.hub.relay is not None:  # with a shared store, another host's turn may have asked it
            state.hub.relay.reply_elsewhere(request_id, answer, message)
            return
        raise not_found(f"Permission request not found: {request_id} (answered already, or its turn ended)")
    questions.reply(request_id, answer, message)


ROUTES = [
    Route("/permission", pending, methods=["GET"]),
    Route("/permission/{requestID}/reply", reply, methods=["POST"]),
    Route("/session/{sessionID}/permissions/{permissionID}", respond, methods=["POST"]),
]
