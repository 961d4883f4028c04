"""Writes of one assistant message and its parts: stored, then announced on the bus.

One writer per step, so writes never interleave and a late write can never bring back an older state of
a part (a tool's progress landing after its result): each write stores the part as it is *now*.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypedDict

import anyio
from attrs import define, field

from strata_core import ids
from strata_core.bus import Bus
from strata_core.message import AssistantMessage, Part
from strata_core.session.store import SessionStore

NowMs = Callable[[], int]
"""Milliseconds since the epoch: message and part times. Injectable so tests can pin them."""


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


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
    now: NowMs = wall_clock_ms
    _lock: anyio.Lock = field(factory=anyio.Lock, init=False, repr=False)

    def new_part_ids(self) -> PartIds:
        return PartIds(id=ids.ascending("prt"), session_id=self.message.session_id, message_id=self.message.id)

    async def part(self, part: Part, delta: str | None = None) -> None:
        async with self._lock:
            await self.store.put_part(part)
        self.bus.part_updated(part, delta)

    async def message_info(self) -> None:
        async with self._lock:
            await self.store.put_message(self.message)
        self.bus.message_updated(self.message)

    def announce(self, part: Part, delta: str | None = None) -> None:
        """Publish a change without storing it yet (a streaming delta between coalesced writes)."""
        self.bus.part_updated(part, delta)
