"""Sessions: list, create, read, rename, fork, delete, their children, todos and the status of busy ones."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_core.session import session_data
from strata_core.tool import TodoWriteTool
from strata_server.state import server_state


def session_id(request: Request) -> str:
    return str(request.path_params["sessionID"])


async def list_sessions(request: Request) -> JSONResponse:
    state = server_state(request)
    sessions = await state.runtime.sessions.list_sessions()
    roots = request.query_params.get("roots") == "true"
    search = request.query_params.get("search", "").lower()
    found = [s for s in sessions if (not roots or s.parent_id is None) and search in s.title.lower()]
    limit = request.query_params.get("limit", "")
    if limit.isdigit():
        found = found[: int(limit)]
    return JSONResponse([session_data(s) for s in found])


async def create_session(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "session.create", optional=True)
    parent_id = body.get("parentID")
    if parent_id is not None:
        await state.runtime.sessions.get(parent_id)
    permission = _rules(body.get("permission"))
    info = await state.runtime.sessions.create(parent_id=parent_id, title=body.get("title"), permission=permission)
    return JSONResponse(session_data(info))


def _rules(raw: Any) -> list[dict[str, str]] | None:
    return None if raw is None else [dict(rule) for rule in raw]


async def session_status(request: Request) -> JSONResponse:
    return JSONResponse(dict(server_state(request).hub.statuses.statuses))


async def get_session(request: Request) -> JSONResponse:
    return JSONResponse(session_data(await server_state(request).runtime.sessions.get(session_id(request))))


async def update_session(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "session.update")
    sessions = state.runtime.sessions
    info = await sessions.get(session_id(request))
    if "title" in body and body["title"] is not None:
        info = await sessions.set_title(info.id, body["title"])
    if "permission" in body:
        info = await sessions.set_permission(info.id, _rules(body["permission"]))
    return JSONResponse(session_data(info))


async def delete_session(request: Request) -> JSONResponse:
    state = server_state(request)
    target = session_id(request)
    await state.runtime.sessions.get(target)
    await state.turns.stop(target)
    await state.runtime.sessions.delete(target)
    return JSONResponse(True)


async def children(request: Request) -> JSONResponse:
    state = server_state(request)
    parent = await state.runtime.sessions.get(session_id(request))
    return JSONResponse([session_data(s) for s in await state.runtime.sessions.children(parent.id)])


async def todos(request: Request) -> JSONResponse:
    state = server_state(request)
    info = await state.runtime.sessions.get(session_id(request))
    tool = state.runtime.container.registry().get(TodoWriteTool.NAME)
    items = await tool.store.get(info.id) if isinstance(tool, TodoWriteTool) else ()
    return JSONResponse([todo.as_json() for todo in items])


async def fork(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "session.fork", optional=True)
    info = await state.runtime.sessions.fork(session_id(request), body.get("messageID"), inclusive=False)
    return JSONResponse(session_data(info))


ROUTES = [
    Route("/session", list_sessions, methods=["GET"]),
    Route("/session", create_session, methods=["POST"]),
    Route("/session/status", session_status, methods=["GET"]),
    Route("/session/{sessionID}", get_session, methods=["GET"]),
    Route("/session/{sessionID}", update_session, methods=["PATCH"]),
    Route("/session/{sessionID}", delete_session, methods=["DELETE"]),
    Route("/session/{sessionID}/children", children, methods=["GET"]),
    Route("/session/{sessionID}/todo", todos, methods=["GET"]),
    Route("/session/{sessionID}/fork", fork, methods=["POST"]),
]
