"""`GET /event` and `GET /global/event`: the server's events as server-sent events, one JSON object per `data:`.

Each stream opens with `server.connected`, then sends `server.heartbeat` every 10 s (`heartbeat_seconds`), as
OpenCode 1.18.33 does on each connection (in place of a comment ping: its clients watch for the event).
`/global/event` wraps each event as `{directory, project, payload}` (and the server's own two as `{payload}`),
as OpenCode's global stream does. Events end with a bare "\n\n", as OpenCode frames them: the SDK's default
(v1) client splits the stream on exactly that. The subscription exists before the response's headers go out,
so a client that prompts as soon as it sees them misses nothing of the turn. A client that hangs up ends its
subscription at once; one that stops reading is dropped by the hub or by the send timeout.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.routing import Route

from strata_server.event_shapes import Payload
from strata_server.state import ServerState, server_state

SEND_TIMEOUT_SECONDS = 30


async def _stream(state: ServerState, wrap: Callable[[Payload], dict[str, Any]]) -> EventSourceResponse:
    async def events() -> AsyncGenerator[dict[str, str], None]:
        async with state.hub.subscribe() as payloads:
            yield {"data": json.dumps(wrap(state.hub.shapes.event("server.connected", {})), separators=(",", ":"))}
            async for payload in payloads:
                yield {"data": json.dumps(wrap(payload), separators=(",", ":"))}

    stream = events()
    connected = await anext(stream)  # subscribes now, before the response starts

    async def subscribed() -> AsyncIterator[dict[str, str]]:
        try:
            yield connected
            async for event in stream:
                yield event
        finally:
            await stream.aclose()

    def heartbeat() -> ServerSentEvent:
        beat = wrap(state.hub.shapes.event("server.heartbeat", {}))
        return ServerSentEvent(data=json.dumps(beat, separators=(",", ":")), sep="\n")

    return EventSourceResponse(
        subscribed(),
        ping=state.settings.heartbeat_seconds,
        ping_message_factory=heartbeat,
        send_timeout=SEND_TIMEOUT_SECONDS,
        sep="\n",
    )


SERVER_EVENTS = ("server.connected", "server.heartbeat")
"""Events of the server itself, which `/global/event` sends without a directory or project, as OpenCode does."""


async def events(request: Request) -> EventSourceResponse:
    return await _stream(server_state(request), lambda payload: payload)


async def global_events(request: Request) -> EventSourceResponse:
    state = server_state(request)
    project = state.runtime.project

    def wrap(payload: Payload) -> dict[str, Any]:
        if payload["type"] in SERVER_EVENTS:
            return {"payload": payload}
        return {"directory": str(project.directory), "project": project.id, "payload": payload}

    return await _stream(state, wrap)


ROUTES = [
    Route("/event", events, methods=["GET"]),
    Route("/global/event", global_events, methods=["GET"]),
]
