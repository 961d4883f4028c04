"""Writes of one assistant message and its parts: announced on the bus, then stored.

One writer per step, so writes never interleave, and each write stores the part as it is *now*, so a late
write can never bring back an older state of a part (a tool's progress landing after its result).

While a step streams, writes are stored behind the step rather than in its way: each change is queued
(several changes to one part waiting together become one write of its latest state) and a background task
stores the queue in order, overlapping the model's stream: whatever is queued when it looks is stored as
one transaction (`put_records`, where the store has it: one trip to the database instead of one a write).
`flush()` is the barrier where durability matters: before a tool runs (its call must be on disk before its
side effects) and when the step ends. A kill loses at most the changes still queued, and what is on disk is always an
earlier state of the same step.

A streaming part's deltas are announced as deltas (`delta()`: the piece only) and its coalesced stores are
not announced again (`save()`): subscribers grow the part from its deltas, between the whole part announced
at its start and at its end (`part()`).
"""

from __future__ import annotations

from typing import TypedDict

import anyio
from anyio.abc import TaskGroup
from attrs import define, field

from strata_core.bus import Bus
from strata_core.clock import Clock
from strata_core.ids import Ids
from strata_core.message import AssistantMessage, MessageWithParts, Part, ReasoningPart, TextPart
from strata_core.session.store import SessionStore

_MESSAGE = "message"
"""The queue key of the message record itself (part ids never equal it)."""


class PartIds(TypedDict):
    """The identifying fields every new part of a message starts with."""

    id: str
    session_id: str
    message_id: str


@define
class PartWriter:
    store: SessionStore
    bus: Bus
    message: AssistantMessage
    clock: Clock
    ids: Ids
    _lock: anyio.Lock = field(factory=lambda: anyio.Lock(fast_acquire=True), init=False, repr=False)
    """Taken at every queued write and flush: uncontended, without a trip through the event loop."""
    _queue: dict[str, Part | AssistantMessage] = field(factory=dict, init=False, repr=False)
    """Waiting writes in first-queued order (a part's first write fixes its position in the message)."""
    _group: TaskGroup | None = field(default=None, init=False, repr=False)
    _draining: bool = field(default=False, init=False, repr=False)
    _held: bool = field(default=False, init=False, repr=False)
    """Queued writes wait for the next barrier (`flush`) instead of starting the background task."""
    _parts: dict[str, Part] = field(factory=dict, init=False, repr=False)
    """Every part given to the store, in the order the store keeps them."""

    def new_part_ids(self) -> PartIds:
        return PartIds(id=self.ids.new("prt"), session_id=self.message.session_id, message_id=self.message.id)

    def now(self) -> int:
        """The clock's milliseconds, for the times of this message's parts."""
        return self.clock.now_ms()

    def write_behind(self, group: TaskGroup | None) -> None:
        """Queue writes and store them from a task in `group` (None: every write is stored before it returns)."""
        self._group = group

    def hold(self) -> None:
        """Keep what is queued from now on for the next `flush` (the end of a step: its last records then go
        to the store as one transaction, not one by one)."""
        self._held = True

    async def part(self, part: Part) -> None:
        """Announce the part whole and store it."""
        self.bus.part_updated(part)
        await self.save(part)

    async def save(self, part: Part) -> None:
        """Store the part without announcing it (a growing part, whose deltas were announced already)."""
        self._parts.setdefault(part.id, part)
        await self._store(part.id, part)

    def delta(self, part: TextPart | ReasoningPart, delta: str) -> None:
        """Announce text appended to a streaming part; stored later, with the part (`save`, `part`)."""
        self.bus.part_delta(part, delta)

    def stored(self) -> MessageWithParts:
        """The message and its parts as the store holds them once everything is flushed."""
        return MessageWithParts(self.message, list(self._parts.values()))

    async def message_info(self) -> None:
        self.bus.message_updated(self.message)
        await self._store(_MESSAGE, self.message)

    def queue(self, part: Part) -> None:
        """Announce and queue a change from synchronous code (a tool's progress callback)."""
        self.bus.part_updated(part)
        if self._group is not None:
            self._parts.setdefault(part.id, part)
            self._enqueue(part.id, part)

    def announce(self, part: Part) -> None:
        """Publish a change without storing it yet (a tool call whose input is still streaming)."""
        self.bus.part_updated(part)

    async def flush(self) -> None:
        """Store everything queued so far; returns once it is all on disk."""
        self._held = False
        await self._drain()
        async with self._lock:  # a write the background task has in flight
            pass

    async def _store(self, key: str, record: Part | AssistantMessage) -> None:
        self._enqueue(key, record)
        if self._group is None:  # stored before returning, with whatever was still queued (one transaction)
            await self.flush()

    def _enqueue(self, key: str, record: Part | AssistantMessage) -> None:
        self._queue.setdefault(key, record)
        if not self._draining and not self._held and self._group is not None:
            self._draining = True
            self._group.start_soon(self._drain_in_background)

    async def _drain_in_background(self) -> None:
        try:
            await self._drain()
        finally:
            self._draining = False

    async def _drain(self) -> None:
        while self._queue:
            # Taken off the queue before they are stored, so a change made meanwhile queues its record again.
            taken, self._queue = self._queue, {}
            try:
                await self._put(*taken.values())
            except BaseException:
                self._queue = {**taken, **self._queue}  # not stored: back at the front
                raise

    async def _put(self, *records: Part | AssistantMessage) -> None:
        async with self._lock:
            put_records = getattr(self.store, "put_records", None)  # optional: a store of one's own may lack it
            if put_records is not None and len(records) > 1:
                await put_records(records)
                return
            for record in records:
                if isinstance(record, AssistantMessage):
                    await self.store.put_message(record)
                else:
                    await self.store.put_part(record)
