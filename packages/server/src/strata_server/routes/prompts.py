"""A session's messages and turns: read, edit and delete messages and parts, prompt (and wait), prompt in the
background, abort, summarise."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from strata_core.serialization import PartShapeError, part_from_data
from strata_core.session import MessageNotFoundError, message_data, part_data
from strata_server.errors import bad_request
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


async def delete_message(request: Request) -> JSONResponse:
    """Remove a message and its parts (true even when it was not there, as OpenCode answers)."""
    state, message_id = server_state(request), str(request.path_params["messageID"])
    await state.turns.after_abort(session_id(request))
    await state.runtime.sessions.delete_message(session_id(request), message_id)
    return JSONResponse(True)


async def delete_part(request: Request) -> JSONResponse:
    state = server_state(request)
    message_id, part_id = str(request.path_params["messageID"]), str(request.path_params["partID"])
    await state.turns.after_abort(session_id(request))
    await state.runtime.sessions.delete_part(session_id(request), message_id, part_id)
    return JSONResponse(True)


async def update_part(request: Request) -> JSONResponse:
    """Replace a part with the body, whole (or add it to the message), and answer it as stored."""
    state = server_state(request)
    body = await state.body(request, "part.update")
    path = {key: str(request.path_params[name]) for key, name in _PART_PATH.items()}
    differing = [key for key, value in path.items() if body.get(key) != value]
    if differing:
        raise bad_request(f"The body's {', '.join(differing)} must match the path ({path[differing[0]]}).")
    try:
        part = part_from_data(body)
    except PartShapeError as error:
        raise bad_request(f"The body is not a part this server can store: {error}") from None
    await state.turns.after_abort(part.session_id)
    await state.runtime.sessions.put_part(part)
    return JSONResponse(part_data(part))


_PART_PATH = {"sessionID": "sessionID", "messageID": "messageID", "id": "partID"}


async def prompt(request: Request) -> JSONResponse:
    """Run a turn and answer with its last assistant message (the turn goes on if the client hangs up)."""
    state = server_state(request)
    body = await state.body(request, "session.prompt")
    turn = await state.turns.start(prompt_request(session_id(request), body, state.runtime.project))
    answer = await turn.result()
    await state.hub.delivered()  # the turn's events reach the event streams' readers before its answer
    return JSONResponse(message_data(answer))


async def prompt_async(request: Request) -> Response:
    state = server_state(request)
    body = await state.body(request, "session.prompt_async")
    await state.turns.start(prompt_request(session_id(request), body, state.runtime.project))
    return Response(status_code=204)


async def abort(request: Request) -> JSONResponse:
    """Cancel the session's running turn with its tool calls and open questions, or its user's shell command
    (true even when idle), on whichever host sharing the store runs it."""
    state = server_state(request)
    await state.turns.abort(session_id(request))
    if state.hub.relay is not None:  # with a shared store, the turn may be running on another host
        state.hub.relay.abort_elsewhere(session_id(request))
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
    Route("/session/{sessionID}/message/{messageID}", delete_message, methods=["DELETE"]),
    Route("/session/{sessionID}/message/{messageID}/part/{partID}", delete_part, methods=["DELETE"]),
    Route("/session/{sessionID}/message/{messageID}/part/{partID}", update_part, methods=["PATCH"]),
    Route("/session/{sessionID}/prompt_async", prompt_async, methods=["POST"]),
    Route("/session/{sessionID}/abort", abort, methods=["POST"]),
    Route("/session/{sessionID}/summarize", summarize, methods=["POST"]),
]
