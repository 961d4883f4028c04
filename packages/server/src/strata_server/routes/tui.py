"""The TUI control channel (`/tui/*`): an SDK call that drives an attached TUI. Each route publishes the `tui.*`
event OpenCode 1.18.33 publishes for it, which every `/event` subscriber (the TUI among them) receives, and
answers `true`; `control/next` and `control/response` are the request queue (`strata_server.tui_control`).

`execute-command` maps OpenCode's old command names (`agent_cycle`, `messages_first`, ...) to the TUI's as
OpenCode does; a name it does not know is passed on as given, where OpenCode sends the event without one (which
its own schema forbids, and no TUI acts on). `open-themes` publishes `session.list`, as OpenCode's does.
"""

from __future__ import annotations

from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from strata_server.state import ServerState, server_state

TOAST_MS = 5000
"""How long a toast shows when the caller gives no duration (OpenCode's default)."""

LEGACY_COMMANDS = {
    "session_new": "session.new",
    "session_share": "session.share",
    "session_interrupt": "session.interrupt",
    "session_compact": "session.compact",
    "messages_page_up": "session.page.up",
    "messages_page_down": "session.page.down",
    "messages_line_up": "session.line.up",
    "messages_line_down": "session.line.down",
    "messages_half_page_up": "session.half.page.up",
    "messages_half_page_down": "session.half.page.down",
    "messages_first": "session.first",
    "messages_last": "session.last",
    "agent_cycle": "agent.cycle",
}
"""The command names of OpenCode's earlier TUI, as its server translates them."""

OPENS = {
    "/tui/open-help": "help.show",
    "/tui/open-sessions": "session.list",
    "/tui/open-themes": "session.list",
    "/tui/open-models": "model.list",
    "/tui/submit-prompt": "prompt.submit",
    "/tui/clear-prompt": "prompt.clear",
}
"""The routes without a body, and the TUI command each one executes."""


def _published(state: ServerState, kind: str, properties: dict[str, Any]) -> JSONResponse:
    state.hub.broadcast(kind, properties)
    return JSONResponse(True)


async def append_prompt(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "tui.appendPrompt")
    return _published(state, "tui.prompt.append", {"text": body["text"]})


async def run_command(request: Request) -> JSONResponse:
    return _published(server_state(request), "tui.command.execute", {"command": OPENS[request.url.path]})


async def execute_command(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "tui.executeCommand")
    command = str(body["command"])
    return _published(state, "tui.command.execute", {"command": LEGACY_COMMANDS.get(command, command)})


async def show_toast(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "tui.showToast")
    return _published(state, "tui.toast.show", toast(body))


def toast(body: dict[str, Any]) -> dict[str, Any]:
    shown: dict[str, Any] = {key: body[key] for key in ("title", "message", "variant") if key in body}
    return {**shown, "duration": body.get("duration", TOAST_MS)}


async def select_session(request: Request) -> JSONResponse:
    state = server_state(request)
    body = await state.body(request, "tui.selectSession")
    session = await state.runtime.sessions.get(body["sessionID"])  # an unknown one is a 404
    return _published(state, "tui.session.select", {"sessionID": session.id})


async def publish(request: Request) -> JSONResponse:
    """Publish one of the TUI's events as given (a toast gets its default duration, as OpenCode gives it)."""
    state = server_state(request)
    body = await state.body(request, "tui.publish")
    properties = dict(body["properties"])
    if body["type"] == "tui.toast.show":
        properties = toast(properties)
    return _published(state, str(body["type"]), properties)


async def control_next(request: Request) -> JSONResponse:
    """The oldest queued TUI request, waiting until there is one. A caller that hangs up stops waiting, so
    the request it would have taken stays queued for the next one."""
    state = server_state(request)
    taken: list[dict[str, Any]] = []
    async with anyio.create_task_group() as group:

        async def take() -> None:
            taken.append((await state.tui.next()).as_json())
            group.cancel_scope.cancel()

        group.start_soon(take)
        await _hung_up(request)
        group.cancel_scope.cancel()
    return JSONResponse(taken[0] if taken else None)


async def _hung_up(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def control_response(request: Request) -> JSONResponse:
    state = server_state(request)
    state.tui.respond(await state.body(request, "tui.control.response", optional=True))
    return JSONResponse(True)


ROUTES = [
    Route("/tui/append-prompt", append_prompt, methods=["POST"]),
    *(Route(path, run_command, methods=["POST"]) for path in OPENS),
    Route("/tui/execute-command", execute_command, methods=["POST"]),
    Route("/tui/show-toast", show_toast, methods=["POST"]),
    Route("/tui/select-session", select_session, methods=["POST"]),
    Route("/tui/publish", publish, methods=["POST"]),
    Route("/tui/control/next", control_next, methods=["GET"]),
    Route("/tui/control/response", control_response, methods=["POST"]),
]
