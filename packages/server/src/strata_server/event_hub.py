"""One reader of the core's bus for the whole server: each event is shaped once, recorded in the session
status board, and handed to every connected `/event` and `/global/event` client.

Each client gets a bounded buffer. A client that stops reading while connected is dropped when its buffer
fills (its stream ends; OpenCode's clients reconnect), so it can never make the server hold events without
limit; a client that disconnects is forgotten at once and costs nothing from then on. The hub takes every
bus event already waiting at each wake-up (`Bus.waiting`), so it keeps up with a fast stream's bursts of
deltas; each delta is shaped as `message.part.delta` carrying only its piece, so a client's buffer holds at
most its length in events, never copies of a growing part.

With a shared store (PostgreSQL), the hub also relays what it shaped to the other servers, and hands their
events to its clients as its own (`event_relay.py`), so every host's clients see every host's turns.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream, MemoryObjectStreamStatistics
from attrs import define, field

from strata_core import bus as b
from strata_core.logging import get_logger
from strata_server.event_relay import REQUESTS, EventRelay
from strata_server.event_shapes import EventShapes, Payload, status_data

log = get_logger(__name__)

CLIENT_BUFFER = 10_000
"""Events a connected client may fall behind by before it is dropped."""
DELIVERY_WAIT_SECONDS = 2.0
"""How long an answer waits for the events of its turn to be written to the clients (`delivered`)."""
PARKED_POLL_SECONDS = 0.002
READ_GRACE_SECONDS = 0.1
"""Then, with a client connected, how long it is given to read them before the answer goes out."""


@define
class StatusBoard:
    """Sessions that are not idle, with OpenCode's status of each (`GET /session/status`)."""

    statuses: dict[str, Payload] = field(factory=dict)

    def observe(self, event: b.BusEvent, now_ms: int) -> None:
        if isinstance(event, b.SessionStatus) and event.status == "idle":
            self.statuses.pop(event.session_id, None)
        elif isinstance(event, b.SessionStatus | b.SessionRetry):
            self.statuses[event.session_id] = status_data(event, now_ms)

    def observe_shaped(self, payload: Payload) -> None:
        """The same, from an event another server shaped (`session.status` with OpenCode's status object)."""
        properties = payload.get("properties", {})
        session_id, status = properties.get("sessionID"), properties.get("status")
        if payload.get("type") != "session.status" or not isinstance(session_id, str) or not isinstance(status, dict):
            return
        if status.get("type") == "idle":
            self.statuses.pop(session_id, None)
        else:
            self.statuses[session_id] = status


@define
class EventHub:
    bus: b.Bus
    shapes: EventShapes
    statuses: StatusBoard = field(factory=StatusBoard)
    relay: EventRelay | None = None
    """The other servers sharing the store, when there are (PostgreSQL)."""
    on_request: Callable[[Payload], object] | None = None
    """What to do with another server's request (`event_relay.REQUESTS`: an abort, a permission reply) that this
    server may be the one to carry out."""
    _clients: list[MemoryObjectSendStream[Payload]] = field(factory=list, init=False)
    _events: MemoryObjectReceiveStream[b.BusEvent] | None = field(default=None, init=False)

    async def run(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Read the bus until cancelled (started in the server's task group before it accepts requests)."""
        async with self.bus.subscribe() as events, anyio.create_task_group() as group:
            self._events = events
            if self.relay is not None:
                await group.start(self.relay.channel.run, self._from_other_server)
            task_status.started()
            async for first in events:
                for event in [first, *self.bus.waiting(events)]:
                    await self._handle(event)

    async def _from_other_server(self, message: Payload) -> None:
        assert self.relay is not None
        if message.get("type") in REQUESTS:
            if self.on_request is not None:
                self.on_request(message)
            return
        payload = await self.relay.incoming(message)
        if payload is not None:
            self.statuses.observe_shaped(payload)
            self._deliver(payload)

    async def delivered(self, wait: float = DELIVERY_WAIT_SECONDS) -> None:
        """Return once every event published so far has been written to each client (at most `wait` s), and,
        with a client connected, once it has had `READ_GRACE_SECONDS` to read them.

        The prompt route answers after this. A scripted or fast turn ends before the event streams have had a
        turn of the event loop, and `opencode run --attach` prints from the stream but ends as soon as its
        prompt is answered: answered first, it printed nothing. OpenCode's own server writes each event as it
        happens and answers a prompt a few hundred milliseconds after its last one (its post-turn work), so its
        clients always read them first; the grace gives them the same. Written means parked: the hub and each
        client's writer wait for their next event with nothing left in their buffers (a task that was handed an
        event but has not run yet is not parked)."""
        with anyio.move_on_after(wait):
            while not self._parked():  # noqa: ASYNC110 - stream statistics change without an event to wait on
                await anyio.sleep(PARKED_POLL_SECONDS)
        if self._clients:
            await anyio.sleep(READ_GRACE_SECONDS)

    def _parked(self) -> bool:
        clients = [client.statistics() for client in self._clients]
        hub = [self._events.statistics()] if self._events is not None else []
        return all(_idle(statistics) for statistics in [*hub, *clients])

    async def _handle(self, event: b.BusEvent) -> None:
        self.statuses.observe(event, self.shapes.clock.now_ms())
        if not self._clients and self.relay is None:
            return  # nobody listening: skip the shaping (a title event reads the store)
        try:
            payloads = await self.shapes.shape(event)
        except Exception as error:  # one event that cannot be shown must not end every stream
            log.error("server.event_unshaped", kind=type(event).__name__, exc_info=error)
            return
        for payload in payloads:
            self._deliver(payload)
            if self.relay is not None:
                self.relay.outgoing(payload)

    def broadcast(self, kind: str, properties: Payload) -> None:
        """Send an event of the server's own (not the core's bus), such as `tui.prompt.append`, to every client."""
        self._deliver(self.shapes.event(kind, properties))

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


def _idle(statistics: MemoryObjectStreamStatistics) -> bool:
    """Nothing buffered, and its reader is waiting for more (so it has finished with what it was given)."""
    return statistics.current_buffer_used == 0 and statistics.tasks_waiting_receive > 0
