"""The SQLite store's storage failures are one `StorageError` branch naming the file and what to do; the write
they hit is rolled back whole and the store goes on working once the cause is gone (session/storage_errors.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import anyio
import pytest
from session_records import session_info, user_message
from small_disk import mounted_tmpfs

from strata_core.errors import StrataError
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.storage_errors import (
    StorageDamagedError,
    StorageError,
    StorageLockedError,
    StorageReadOnlyError,
)

pytestmark = pytest.mark.anyio


async def test_a_file_that_is_not_a_database_is_reported_as_damaged_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    with pytest.raises(StorageDamagedError) as caught:
        async with SqliteSessionStore.open(path):
            pass
    assert isinstance(caught.value, StrataError) and caught.value.path == path
    assert str(caught.value).startswith(f"The session database {path} is damaged or is not a SQLite database")
    assert "Move it (and its -wal and -shm files) aside" in str(caught.value)


async def test_a_lock_held_past_the_wait_is_reported_and_the_store_works_once_it_is_released(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    kept = session_info("ses_kept")
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(kept)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process in the middle of a long write
    try:
        store = SqliteSessionStore(path, busy_timeout_ms=100)
        async with store:
            with pytest.raises(StorageLockedError, match=r"stayed locked by another process for more than 0\.1 s"):
                await store.put_session(session_info("ses_new"))
            other.execute("ROLLBACK")
            await store.put_session(session_info("ses_new"))
            assert {info.id for info in await store.list_sessions()} == {"ses_kept", "ses_new"}
    finally:
        other.close()


@pytest.fixture
def read_only_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of its own, which the test remounts read-only."""
    with mounted_tmpfs(tmp_path / "ro", "4m") as mount:
        yield mount


async def test_a_read_only_data_directory_is_reported_with_what_to_fix(read_only_disk: Path) -> None:
    path = read_only_disk / "strata.db"
    session = session_info("ses_kept")
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(session)
        await store.put_message(user_message(session.id))
    await anyio.run_process(["mount", "-o", "remount,ro", str(read_only_disk)])
    with pytest.raises(StorageError) as caught:
        async with SqliteSessionStore.open(path):
            pass
    assert isinstance(caught.value, StorageReadOnlyError)
    assert str(caught.value).startswith(f"The session database {path} cannot be opened for writing")
    assert f"{read_only_disk} must be writable by this user" in str(caught.value)
    with closing(sqlite3.connect(f"file:{path}?immutable=1", uri=True)) as db:  # a WAL file read where it lies
        assert db.execute("SELECT count(*) FROM message").fetchone() == (1,)
