"""A session's messages and turns: read messages, prompt (and wait), prompt in the background, abort, summarise."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from strata_core.session.export import message_data
from strata_core.session.service import MessageNotFoundError
from strata_server.prompt_body import prompt_request
from strata_server.routes.sessions import session_id
from strata_server.state import server_state


async def messages(request: Request) -> JSONResponse:
    history = await server_state(request).runtime.sessions.messages(session_id(request))
    before = request.query_params.get("before")
    if before:
        history = [m for m in history if m.info.id < before]
    limit = request.query_params.get("limit", "")
    if limit.isdigit() and int(limit) > 0:
        history = history[-int(limit) :]
    return JSONResponse([message_data(m) for m in history])


async def message(request: Request) -> JSONResponse:
    target, message_id = session_id(request), str(request.path_params["messageID"])
    for found in await server_state(request).runtime.sessions.messages(target):
        if found.info.id == message_id:
            return JSONResponse(message_data(found))
    raise MessageNotFoundError(target, message_id)


async def prompt(request: Request) -> JSONResponse:
    """Run a turn and answer with its last assistant message (the turn goes on if the client hangs up)."""
    state = server_state(request)
    body = await state.body(request, "session.prompt")
    turn = await state.turns.start(prompt_request(session_id(request), body, state.runtime.project))
    return JSONResponse(message_data(await turn.result()))


async def prompt_async(request: Request) -> Response:
    state = server_state(request)
    body = await state.body(request, "session.prompt_async")
    await state.turns.start(prompt_request(session_id(request), body, state.runtime.project))
    return Response(status_code=204)


async def abort(request: Request) -> JSONResponse:
    """Cancel the session's running turn with its tool calls and open questions (true even when idle)."""
    await server_state(request).runtime.loop.cancel(session_id(request))
    return JSONResponse(True)


async def summarize(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "session.summarize")
    state.runtime.models.resolve(f"{body['providerID']}/{body['modelID']}")  # a bad ref is the client's 400
    turn = await state.turns.compact(session_id(request))
    await turn.result()
    return JSONResponse(True)


ROUTES = [
    Route("/session/{sessionID}/message", messages, methods=["GET"]),
    Route("/session/{sessionID}/message", prompt, methods=["POST"]),
    Route("/session/{sessionID}/message/{messageID}", message, methods=["GET"]),
    Route("/session/{sessionID}/prompt_async", prompt_async, methods=["POST"]),
    Route("/session/{sessionID}/abort", abort, methods=["POST"]),
    Route("/session/{sessionID}/summarize", summarize, methods=["POST"]),
]
