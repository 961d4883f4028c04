"""The TUI control queue (`GET /tui/control/next`, `POST /tui/control/response`), one per server, as OpenCode's.

`call(path, body)` queues a request for whoever drives the TUI and waits for its response: a client long-polls
`control/next` for the oldest request (`{path, body}`) and answers it with `control/response`. OpenCode's own
`/tui/*` routes publish `tui.*` events instead (so does Strata's), and nothing in OpenCode 1.18.33 queues a
request itself; the queue is there for an embedding application, and answers as OpenCode's does. Both queues
are bounded: a request waits for room, and a response nobody waits for is dropped past the bound.
"""

from __future__ import annotations

from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from attrs import define, field, frozen

from strata_core.logging import get_logger

log = get_logger(__name__)

QUEUE_LIMIT = 1000


@frozen
class TuiRequest:
    path: str
    body: Any

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "body": self.body}


def _queue() -> tuple[MemoryObjectSendStream[Any], MemoryObjectReceiveStream[Any]]:
    return anyio.create_memory_object_stream[Any](max_buffer_size=QUEUE_LIMIT)


@define
class TuiControl:
    _requests: tuple[MemoryObjectSendStream[TuiRequest], MemoryObjectReceiveStream[TuiRequest]] = field(
        factory=_queue, init=False
    )
    _responses: tuple[MemoryObjectSendStream[Any], MemoryObjectReceiveStream[Any]] = field(factory=_queue, init=False)

    async def call(self, path: str, body: Any) -> Any:
        """Queue a request for the TUI's driver and return the next response it sends."""
        await self._requests[0].send(TuiRequest(path, body))
        return await self._responses[1].receive()

    async def next(self) -> TuiRequest:
        """The oldest queued request, waiting for one."""
        return await self._requests[1].receive()

    def respond(self, body: Any) -> None:
        try:
            self._responses[0].send_nowait(body)
        except anyio.WouldBlock:
            log.warning("server.tui_response_dropped", reason="no caller is waiting and the queue is full")
