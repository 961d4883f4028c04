"""One reader of the core's bus for the whole server: each event is shaped once, recorded in the session
status board, and handed to every connected `/event` and `/global/event` client.

Each client gets a bounded buffer. A client that stops reading while connected is dropped when its buffer
fills (its stream ends; OpenCode's clients reconnect), so it can never make the server hold events without
limit; a client that disconnects is forgotten at once and costs nothing from then on. The hub takes every
bus event already waiting at each wake-up (`Bus.waiting`), so it keeps up with a fast stream's bursts of
deltas; each delta is shaped as `message.part.delta` carrying only its piece, so a client's buffer holds at
most its length in events, never copies of a growing part.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from attrs import define, field

from strata_core import bus as b
from strata_core.logging import get_logger
from strata_server.event_shapes import EventShapes, Payload, status_data

log = get_logger(__name__)

CLIENT_BUFFER = 10_000
"""Events a connected client may fall behind by before it is dropped."""


@define
class StatusBoard:
    """Sessions that are not idle, with OpenCode's status of each (`GET /session/status`)."""

    statuses: dict[str, Payload] = field(factory=dict)

    def observe(self, event: b.BusEvent, now_ms: int) -> None:
        if isinstance(event, b.SessionStatus) and event.status == "idle":
            self.statuses.pop(event.session_id, None)
        elif isinstance(event, b.SessionStatus | b.SessionRetry):
            self.statuses[event.session_id] = status_data(event, now_ms)


@define
class EventHub:
    bus: b.Bus
    shapes: EventShapes
    statuses: StatusBoard = field(factory=StatusBoard)
    _clients: list[MemoryObjectSendStream[Payload]] = field(factory=list, init=False)

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read the bus until cancelled (started in the server's task group before it accepts requests)."""
        async with self.bus.subscribe() as events:
            task_status.started()
            async for first in events:
                for event in [first, *self.bus.waiting(events)]:
                    await self._handle(event)

    async def _handle(self, event: b.BusEvent) -> None:
        self.statuses.observe(event, self.shapes.clock.now_ms())
        if not self._clients:
            return  # nobody listening: skip the shaping (a title event reads the store)
        try:
            payloads = await self.shapes.shape(event)
        except Exception as error:  # one event that cannot be shown must not end every stream
            log.error("server.event_unshaped", kind=type(event).__name__, exc_info=error)
            return
        for payload in payloads:
            self._deliver(payload)

    def _deliver(self, payload: Payload) -> None:
        for client in list(self._clients):
            try:
                client.send_nowait(payload)
            except anyio.WouldBlock:
                self._clients.remove(client)
                client.close()  # fallen too far behind: its stream ends
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._clients.remove(client)

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[MemoryObjectReceiveStream[Payload]]:
        send, receive = anyio.create_memory_object_stream[Payload](max_buffer_size=CLIENT_BUFFER)
        self._clients.append(send)
        try:
            async with receive:
                yield receive
        finally:
            if send in self._clients:
                self._clients.remove(send)
            send.close()
