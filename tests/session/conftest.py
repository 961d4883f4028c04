"""The stores the shared contract runs against."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from strata_core.session.memory_store import MemorySessionStore
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore


@pytest.fixture(params=["sqlite", "memory"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    if request.param == "sqlite":
        async with SqliteSessionStore.open(tmp_path / "data" / "strata.db") as sqlite:
            yield sqlite
    else:
        async with MemorySessionStore.open() as memory:
            yield memory
