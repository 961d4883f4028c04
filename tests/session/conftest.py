"""The stores the shared contract runs against: SQLite, in memory, and PostgreSQL (a real server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from strata_core.session.memory_store import MemorySessionStore
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore


@pytest.fixture(params=["sqlite", "memory", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SessionStore]:
    if request.param == "postgres":
        from strata_core.session.postgres_store import PostgresSessionStore

        async with PostgresSessionStore.open(request.getfixturevalue("postgres_url")) as postgres:
            yield postgres
    elif request.param == "sqlite":
        async with SqliteSessionStore.open(tmp_path / "data" / "strata.db") as sqlite:
            yield sqlite
    else:
        async with MemorySessionStore.open() as memory:
            yield memory
