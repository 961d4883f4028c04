"""One-at-a-time access to a store, with batches that keep it across awaits for the task that opened them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from attrs import define, field


@define
class AccessGate:
    """Serialises store calls; `hold()` reserves the store for one task (a batch) until it exits.

    A plain lock would deadlock the batch's own writes, and a reentrant one does not exist in anyio, so the
    holder is remembered by task id and its calls pass straight through.
    """

    # fast_acquire: an uncontended call takes the lock without a trip through the event loop (anyio otherwise
    # yields at every acquire; a step passes the gate ~10 times).
    _lock: anyio.Lock = field(factory=lambda: anyio.Lock(fast_acquire=True))
    _holder: int | None = None

    @property
    def held_here(self) -> bool:
        return self._holder is not None and self._holder == anyio.get_current_task().id

    @asynccontextmanager
    async def access(self) -> AsyncIterator[None]:
        """Use the store for one call: immediately inside our own batch, else after everyone before us."""
        if self.held_here:
            yield
            return
        async with self._lock:
            yield

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[bool]:
        """Reserve the store for this task; yields False when it was already reserved by it (a nested batch)."""
        if self.held_here:
            yield False
            return
        async with self._lock:
            self._holder = anyio.get_current_task().id
            try:
                yield True
            finally:
                self._holder = None
