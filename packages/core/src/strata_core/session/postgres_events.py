"""Events between the processes sharing a PostgreSQL store: NOTIFY on one channel, LISTEN on a connection of its own.

Each process sends its messages (JSON objects, shaped by the caller) through one sending connection, in the order
it was given them, so a session's events reach every other process in order (PostgreSQL delivers notifications
in commit order); a burst waiting to go is sent in one pipeline. Every message carries the sender's `origin`, and
a process skips its own. A message whose text would not fit a notification (`MAX_PAYLOAD_BYTES`) is the
caller's to cut or to replace with a reference to the stored record (`fits_one_notification`).

Bounded: the outbox holds at most `outbox_size` messages; past that a message is dropped, counted and logged
(a slow or unreachable database must not make a turn wait for its event stream). A connection that breaks is
opened again after `RECONNECT_SECONDS`; what was sent meanwhile is lost to the listeners, whose clients read the
sessions again on their next request, as after any reconnect.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from attrs import define, field

from strata_core.extras import needing
from strata_core.logging import get_logger
from strata_core.session.database_url import redacted

with needing("postgres", "events shared through PostgreSQL"):
    import psycopg

log = get_logger(__name__)

CHANNEL = "strata_events"
MAX_PAYLOAD_BYTES = 7900
"""PostgreSQL refuses a notification of 8000 bytes or more; the envelope's few bytes fit in the difference."""
RECONNECT_SECONDS = 1.0
OUTBOX_SIZE = 10_000

Message = dict[str, Any]
OnMessage = Callable[[Message], Awaitable[None]]


def fits_one_notification(message: Message) -> bool:
    """Whether `message` fits one notification (with its envelope)."""
    return len(_text(message).encode()) + 64 <= MAX_PAYLOAD_BYTES


def _text(message: Message) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


@define(eq=False)
class NotifyChannel:
    """One process's end of the shared event channel: `send` to the others, `run` to hear theirs."""

    url: str
    outbox_size: int = OUTBOX_SIZE
    origin: str = field(factory=lambda: uuid.uuid4().hex)
    dropped: int = field(default=0, init=False)
    _outbox: MemoryObjectSendStream[str] = field(init=False)
    _pending: MemoryObjectReceiveStream[str] = field(init=False)

    def __attrs_post_init__(self) -> None:
        self._outbox, self._pending = anyio.create_memory_object_stream[str](max_buffer_size=self.outbox_size)

    def send(self, message: Message) -> None:
        """Queue `message` for the other processes (it must fit: `fits_one_notification`); dropped, and
        counted, when the outbox is full."""
        envelope = _text({"origin": self.origin, "message": message})
        try:
            self._outbox.send_nowait(envelope)
        except anyio.WouldBlock:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("shared events dropped: the database is not keeping up", dropped=self.dropped)

    async def run(
        self, on_message: OnMessage, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Send the outbox and hand every other process's messages to `on_message`, until cancelled. Started once
        the listening connection listens, so nothing sent after `start` returns is missed."""
        async with anyio.create_task_group() as group:
            await group.start(self._listen, on_message)
            group.start_soon(self._send_all)
            task_status.started()

    async def _listen(self, on_message: OnMessage, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        started = False
        while True:
            try:
                async with await self._connect() as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if not started:
                        task_status.started()
                        started = True
                    async for notification in conn.notifies():
                        await self._heard(notification.payload, on_message)
            except psycopg.OperationalError as error:
                log.warning("shared events: listening connection lost", database=redacted(self.url), error=str(error))
                if not started:
                    task_status.started()  # the server still serves its own events
                    started = True
            await anyio.sleep(RECONNECT_SECONDS)

    async def _heard(self, text: str, on_message: OnMessage) -> None:
        try:
            envelope = json.loads(text)
        except ValueError:
            return  # not ours
        if not isinstance(envelope, dict) or envelope.get("origin") in (None, self.origin):
            return
        message = envelope.get("message")
        if isinstance(message, dict):
            try:
                await on_message(message)
            except Exception as error:  # one event that cannot be shown must not end the channel
                log.error("shared events: a message could not be handled", exc_info=error)

    async def _send_all(self) -> None:
        while True:
            try:
                async with await self._connect() as conn:
                    async for first in self._pending:
                        await self._send_burst(conn, [first, *_waiting(self._pending)])
            except psycopg.OperationalError as error:
                log.warning("shared events: sending connection lost", database=redacted(self.url), error=str(error))
            await anyio.sleep(RECONNECT_SECONDS)

    async def _send_burst(self, conn: psycopg.AsyncConnection[Any], burst: list[str]) -> None:
        try:
            async with conn.pipeline():
                for envelope in burst:
                    await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, envelope))
        except psycopg.OperationalError:
            raise  # the connection: opened again by the caller
        except (
            psycopg.Error
        ) as error:  # a message the database refused (one too big): the burst is lost, not the channel
            self.dropped += len(burst)
            log.error("shared events: the database refused a burst", events=len(burst), error=str(error))

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        return await psycopg.AsyncConnection.connect(
            self.url, autocommit=True, connect_timeout=10, application_name="strata-events"
        )


def _waiting(pending: MemoryObjectReceiveStream[str]) -> list[str]:
    taken: list[str] = []
    while True:
        try:
            taken.append(pending.receive_nowait())
        except anyio.WouldBlock:
            return taken
