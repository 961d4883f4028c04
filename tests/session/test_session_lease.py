"""The one-writer lease: busy elsewhere fails at once or waits (saying so once), re-entrant in a process."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from strata_core.session.lease import FileLeases, SessionBusyError
from strata_core.session.memory_store import MemorySessionStore

pytestmark = pytest.mark.anyio


async def test_a_held_lease_is_busy_for_another_holder_and_waiting_says_so_once(tmp_path: Path) -> None:
    # Two FileLeases on one directory lock through different descriptors, as two processes would.
    mine, theirs = FileLeases(tmp_path), FileLeases(tmp_path)
    told: list[str] = []
    acquired = anyio.Event()

    async def wait_for_it() -> None:
        async with theirs.hold("ses_1", wait=True, on_wait=lambda: told.append("waiting")) as first:
            assert first
            acquired.set()

    async with anyio.create_task_group() as group:
        async with mine.hold("ses_1"):
            with pytest.raises(SessionBusyError, match="session is busy: ses_1"):
                async with theirs.hold("ses_1"):
                    pass
            group.start_soon(wait_for_it)
            await anyio.sleep(0.3)
            assert told == ["waiting"] and not acquired.is_set()
            async with theirs.hold("ses_2"):  # another session is not busy
                pass
        with anyio.fail_after(10):
            await acquired.wait()
    assert told == ["waiting"]


async def test_a_lease_is_reentrant_within_a_process(tmp_path: Path) -> None:
    leases = FileLeases(tmp_path)
    async with leases.hold("ses_1") as outer, leases.hold("ses_1") as inner:
        assert outer and not inner
    async with leases.hold("ses_1") as again:
        assert again  # released when the last holder left


async def test_the_memory_store_lease_is_reentrant() -> None:
    async with MemorySessionStore.open() as store, store.lease("ses_1") as outer, store.lease("ses_1") as inner:
        assert outer and not inner
