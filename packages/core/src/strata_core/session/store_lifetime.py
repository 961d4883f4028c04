"""How a store is opened and closed, the same for every implementation: `async with store:` (or `async with
Store.open(...)`, which is the store itself) connects on entry and closes on exit, and whoever opened it closes
it. A store that fails to connect is not closed: it was never open."""

from __future__ import annotations

from typing import Self


class StoreLifetime:
    """The base of the stores: `connect()` and `close()` are the implementation's, entering and leaving are here."""

    __slots__ = ()  # the stores are slotted attrs classes: a base without slots would give them a `__dict__`

    async def connect(self) -> None:
        """Reach the storage and make it ready (idempotent)."""

    async def close(self) -> None:
        """Release what `connect` took (idempotent); later calls raise `StoreClosedError`."""

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
