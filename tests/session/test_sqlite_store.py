"""What only the SQLite store promises: a real file, WAL, a recorded schema version, durability across opens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from session_records import assistant_message, session_info, stored_message, text_part, user_message

from strata_core import message as m
from strata_core.clock import FrozenClock
from strata_core.session import migrations
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import StoreClosedError

pytestmark = pytest.mark.anyio


async def test_the_constructor_touches_nothing_on_disk(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "nested" / "strata.db")
    assert not (tmp_path / "nested").exists()
    with pytest.raises(StoreClosedError, match="not open"):
        await store.get_session("ses_x")


async def test_everything_written_is_there_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    session = session_info()
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    parts = [text_part(session.id, reply.id, text) for text in ("one", "two", "three")]
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(session)
        await store.put_message(user)
        await store.put_message(reply)
        for part in parts:
            await store.put_part(part)

    async with SqliteSessionStore.open(path) as store:
        parts[0].text = "one, replaced after reopening"
        await store.put_part(parts[0])
        assert await store.get_session(session.id) == session
        history = await store.messages(session.id)

    assert [h.info for h in history] == [user, reply]
    assert history[1].parts == parts


def wal_file_exists(path: Path) -> bool:
    return Path(f"{path}-wal").exists()


async def test_the_database_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(session_info())
        assert wal_file_exists(path)
        with sqlite3.connect(path) as other:
            assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_the_schema_version_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    async with SqliteSessionStore.open(path, FrozenClock(1_900_000_000_000)):
        pass
    async with SqliteSessionStore.open(path):  # reopening applies nothing twice
        pass
    with sqlite3.connect(path) as conn:
        assert migrations.current_version(conn) == migrations.LATEST_VERSION
        rows = conn.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()
    assert {r[1] for r in rows} == {1_900_000_000_000}  # stamped by the store's clock, once
    assert [r[0] for r in rows] == [migration.version for migration in migrations.MIGRATIONS]


async def test_a_database_from_a_newer_strata_is_refused_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    async with SqliteSessionStore.open(path):
        pass
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (999, 0)")
    with pytest.raises(migrations.SchemaTooNewError, match=r"strata\.db.*schema version 999"):
        async with SqliteSessionStore.open(path):
            pass


async def test_a_later_migration_is_applied_on_open(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    async with SqliteSessionStore.open(path):
        pass
    later = migrations.LATEST_VERSION + 1
    extra = migrations.Migration(later, "a test column", ("ALTER TABLE session ADD COLUMN extra TEXT",))
    with sqlite3.connect(path, isolation_level=None) as conn:
        assert migrations.migrate(conn, str(path), (*migrations.MIGRATIONS, extra)) == later
        columns = [row[1] for row in conn.execute("PRAGMA table_info(session)")]
    assert "extra" in columns


async def test_a_batch_is_invisible_to_other_connections_until_it_ends(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    session = session_info()
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(session)

        def count_messages() -> int:
            with sqlite3.connect(path) as other:
                return int(other.execute("SELECT count(*) FROM message").fetchone()[0])

        async with store.batch():
            await store.put_message(user_message(session.id))
            await store.put_message(user_message(session.id))
            assert count_messages() == 0
        assert count_messages() == 2


async def test_without_a_batch_each_put_is_committed_when_it_returns(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    session = session_info()
    async with SqliteSessionStore.open(path) as store:
        user = user_message(session.id)
        await store.put_message(user)
        await store.put_part(text_part(session.id, user.id, "x"))
        with sqlite3.connect(path) as other:
            assert other.execute("SELECT count(*) FROM part").fetchone()[0] == 1


async def test_tool_states_and_errors_survive_the_file(tmp_path: Path) -> None:
    session = session_info()
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    reply.error = m.MessageError(name=m.ABORTED_ERROR, message="aborted", data={"retries": 1})
    reply.finish = "tool-calls"
    tool = m.ToolPart(
        id="prt_tool",
        session_id=session.id,
        message_id=reply.id,
        call_id="call_1",
        tool="read",
        state=m.ToolStateError(
            input={"filePath": "/x"}, error="boom", time=m.PartTime(start=1, end=2), metadata={"interrupted": True}
        ),
        metadata={"providerExecuted": True},
    )
    async with SqliteSessionStore.open(tmp_path / "strata.db") as store:
        await store.put_message(reply)
        await store.put_part(tool)
        stored = await stored_message(store, session.id, reply.id)
    assert stored is not None
    assert stored.info == reply
    assert stored.parts == [tool]


async def test_records_put_together_are_stored_in_their_order_and_replace_earlier_ones(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    session = session_info()
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    first, second = text_part(session.id, reply.id, "first"), text_part(session.id, reply.id, "second")
    async with SqliteSessionStore.open(path) as store:
        await store.put_session(session)
        await store.put_records([user, first])
        await store.put_records([reply, second])
        first.text = "first, replaced"
        await store.put_records([second, first])

    async with SqliteSessionStore.open(path) as store:
        history = await store.messages(session.id)
    assert [h.info for h in history] == [user, reply]
    assert [p.text for p in history[1].parts if isinstance(p, m.TextPart)] == ["first, replaced", "second"]
