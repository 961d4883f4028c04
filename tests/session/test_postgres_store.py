"""What the PostgreSQL store adds to the contract: versioned migrations, the advisory-lock lease across
processes (busy at once, taken over when the holder dies), and clear errors when the database is away."""

from __future__ import annotations

import sys
import threading
from typing import Any

import anyio
import pytest
from session_records import session_info, text_part, user_message

from strata_core.engine.session_writer import settle_interrupted_calls
from strata_core.message import PartTime, ToolPart, ToolStateError, ToolStateRunning
from strata_core.session.database_url import DatabaseUnavailableError
from strata_core.session.lease import SessionBusyError
from strata_core.session.migrations import SchemaTooNewError
from strata_core.session.postgres_migrations import LATEST_VERSION
from strata_core.session.postgres_store import PostgresSessionStore

pytestmark = pytest.mark.anyio


async def test_a_fresh_database_is_migrated_once_even_when_several_stores_open_it_at_once(
    postgres_url: str, postgres_server: Any
) -> None:
    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(_open_and_close, postgres_url)
    rows = postgres_server.psql("SELECT version FROM schema_version ORDER BY version", postgres_url)
    assert rows.split() == [str(v) for v in range(1, LATEST_VERSION + 1)]


async def _open_and_close(url: str) -> None:
    async with PostgresSessionStore.open(url):
        pass


async def test_a_database_of_a_newer_schema_is_refused_naming_both_versions(
    postgres_url: str, postgres_server: Any
) -> None:
    await _open_and_close(postgres_url)
    postgres_server.psql("INSERT INTO schema_version VALUES (99, 0)", postgres_url)
    with pytest.raises(SchemaTooNewError, match=f"schema version 99.*up to {LATEST_VERSION}"):
        await _open_and_close(postgres_url)


async def test_an_unreachable_database_is_a_clear_error_without_the_password(postgres_server: Any) -> None:
    url = f"postgresql://postgres:s3cret@127.0.0.1:{_closed_port()}/postgres"
    with pytest.raises(DatabaseUnavailableError, match="cannot be reached") as caught:
        await _open_and_close(url)
    assert "s3cret" not in str(caught.value) and ":***@" in str(caught.value)


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_lease_held_by_one_store_is_busy_for_another_and_reentrant_in_its_own(postgres_url: str) -> None:
    # Two stores on one database hold their locks on different connections, as two hosts would.
    async with PostgresSessionStore.open(postgres_url) as mine, PostgresSessionStore.open(postgres_url) as theirs:
        async with mine.lease("ses_1") as outer, mine.lease("ses_1") as inner:
            assert outer and not inner
            with pytest.raises(SessionBusyError, match="session is busy: ses_1"):
                async with theirs.lease("ses_1"):
                    pass
            async with theirs.lease("ses_2") as other:  # another session is not busy
                assert other
        async with theirs.lease("ses_1") as taken:  # released when mine's last holder left
            assert taken


async def test_a_waiting_holder_says_so_once_and_gets_the_lease_when_it_is_freed(postgres_url: str) -> None:
    told: list[str] = []
    acquired = anyio.Event()
    async with PostgresSessionStore.open(postgres_url) as mine, PostgresSessionStore.open(postgres_url) as theirs:

        async def wait_for_it() -> None:
            async with theirs.lease("ses_1", wait=True, on_wait=lambda: told.append("waiting")):
                acquired.set()

        async with anyio.create_task_group() as group:
            async with mine.lease("ses_1"):
                group.start_soon(wait_for_it)
                await anyio.sleep(0.3)
                assert told == ["waiting"] and not acquired.is_set()
            with anyio.fail_after(10):
                await acquired.wait()
    assert told == ["waiting"]


HOLDER = """
import sys, anyio
from strata_core.message import PartTime, ToolPart, ToolStateRunning
from strata_core.session.postgres_store import PostgresSessionStore

async def main(url: str) -> None:
    async with PostgresSessionStore.open(url) as store, store.lease("ses_1"):
        running = ToolStateRunning(input={"command": "sleep 600"}, time=PartTime(1))
        await store.put_part(ToolPart(id="prt_1", session_id="ses_1", message_id="msg_1", call_id="c1",
                                      tool="bash", state=running))
        print("holding", flush=True)
        await anyio.sleep(600)

anyio.run(main, sys.argv[1])
"""


async def test_a_killed_holder_s_lease_is_taken_over_and_its_running_tool_settled(postgres_url: str) -> None:
    holder = await anyio.open_process([sys.executable, "-c", HOLDER, postgres_url], stderr=None)
    try:
        assert holder.stdout is not None
        with anyio.fail_after(60):
            said = b""
            while b"\n" not in said:
                said += await holder.stdout.receive()
        assert said.strip() == b"holding"
        async with PostgresSessionStore.open(postgres_url) as store:
            with pytest.raises(SessionBusyError):
                async with store.lease("ses_1"):
                    pass
            holder.kill()  # SIGKILL: the process ends without closing anything itself
            with anyio.fail_after(30):
                await holder.wait()
            with anyio.fail_after(30):
                async with store.lease("ses_1", wait=True) as first:
                    assert first
                    assert await settle_interrupted_calls(store, "ses_1", 5) == 1
            assert await store.unfinished_tool_parts("ses_1") == []
    finally:
        if holder.returncode is None:
            holder.kill()
            with anyio.CancelScope(shield=True):
                await holder.wait()


async def test_a_lease_survives_the_database_dropping_its_connection_by_taking_a_new_one(
    postgres_url: str, postgres_server: Any
) -> None:
    async with PostgresSessionStore.open(postgres_url) as store:
        async with store.lease("ses_1"):
            pass
        database = postgres_url.rsplit("/", 1)[1]
        postgres_server.psql(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' AND pid <> "
            "pg_backend_pid()"
        )
        async with store.lease("ses_1") as first:  # the dead lease connection is replaced
            assert first
        session = session_info()
        await store.put_session(session)  # and so are the pool's, the call retried once
        assert await store.get_session(session.id) == session


async def test_a_lease_held_through_a_database_restart_is_taken_again(postgres_url: str, postgres_server: Any) -> None:
    def advisory_locks() -> int:
        return int(postgres_server.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'", postgres_url))

    async with PostgresSessionStore.open(postgres_url) as mine, anyio.create_task_group() as group:
        group.start_soon(mine.keep_leases)
        async with mine.lease("ses_1"):
            assert advisory_locks() == 1
            postgres_server.stop("fast")
            postgres_server.start()  # the restart dropped the lock
            with anyio.fail_after(30):
                while advisory_locks() == 0:  # noqa: ASYNC110 - the keeper takes it again on its next check
                    await anyio.sleep(0.2)
            async with PostgresSessionStore.open(postgres_url) as theirs:
                with pytest.raises(SessionBusyError):
                    async with theirs.lease("ses_1"):
                        pass
        group.cancel_scope.cancel()


async def test_a_database_restart_is_ridden_out_and_one_that_stays_down_is_a_clear_error(
    postgres_url: str, postgres_server: Any
) -> None:
    async with PostgresSessionStore(postgres_url, pool_timeout=20) as store:
        session = session_info()
        user = user_message(session.id)
        await store.put_session(session)
        postgres_server.stop("fast")
        back = threading.Timer(1.0, postgres_server.start)
        back.start()
        try:
            await store.put_message(user)  # the pool's connections died: it waits for a new one, then writes
        finally:
            back.join()
        await store.put_part(text_part(session.id, user.id, "after the restart"))
        (stored,) = await store.messages(session.id)
        assert stored.info == user and len(stored.parts) == 1

    async with PostgresSessionStore(postgres_url, pool_timeout=2) as store:
        postgres_server.stop("fast")
        try:
            with pytest.raises(DatabaseUnavailableError, match=r"not answering|cannot be reached"):
                await store.put_message(user_message(session.id))
        finally:
            postgres_server.start()
        assert len(await store.messages(session.id)) == 1  # nothing of the failed write, the rest intact


async def test_a_statement_slower_than_the_timeout_is_cancelled_and_a_full_pool_refuses_at_once(
    postgres_url: str,
) -> None:
    async with PostgresSessionStore(postgres_url, pool_size=1, pool_timeout=0.3, statement_timeout_ms=1500) as store:
        session = session_info()
        await store.put_session(session)
        import psycopg

        async with await psycopg.AsyncConnection.connect(postgres_url) as blocker:
            await blocker.execute("LOCK TABLE session IN ACCESS EXCLUSIVE MODE")  # held until its transaction ends
            with pytest.raises(DatabaseUnavailableError, match=r"ran longer than 1\.5 s"):
                await store.get_session(session.id)
            async with anyio.create_task_group() as group:
                group.start_soon(_expect_slow, store, session.id)  # holds the pool's one connection
                await anyio.sleep(0.1)
                with pytest.raises(DatabaseUnavailableError, match=r"gave no connection within 0\.3 s"):
                    await store.newest_message_id(session.id)
            await blocker.rollback()
        assert await store.get_session(session.id) == session


async def _expect_slow(store: PostgresSessionStore, session_id: str) -> None:
    with pytest.raises(DatabaseUnavailableError, match="ran longer"):
        await store.get_session(session_id)


async def test_a_tool_part_settled_as_interrupted_is_an_error_state(postgres_url: str) -> None:
    async with PostgresSessionStore.open(postgres_url) as store:
        running = ToolStateRunning(input={"command": "x"}, time=PartTime(1))
        await store.put_part(
            ToolPart(id="prt_1", session_id="ses_1", message_id="msg_1", call_id="c", tool="bash", state=running)
        )
        await settle_interrupted_calls(store, "ses_1", 7)
        part = await store.part("ses_1", "prt_1")
        assert isinstance(part, ToolPart) and isinstance(part.state, ToolStateError)


async def test_a_lease_another_store_took_while_the_connection_was_gone_is_handed_to_on_lost(
    postgres_url: str, postgres_server: Any
) -> None:
    lost: list[str] = []

    async def stop_turn(session_id: str) -> None:
        lost.append(session_id)

    database = postgres_url.rsplit("/", 1)[1]
    async with PostgresSessionStore.open(postgres_url) as mine, anyio.create_task_group() as group:
        group.start_soon(mine.keep_leases, stop_turn)
        async with mine.lease("ses_1"), mine.lease("ses_2"):
            postgres_server.psql(  # every connection of the database drops, the lease connection's locks with it
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' AND pid <> "
                "pg_backend_pid()"
            )
            async with PostgresSessionStore.open(postgres_url) as theirs, theirs.lease("ses_1"):
                with anyio.fail_after(30):
                    while not lost:  # noqa: ASYNC110 - the keeper finds it on its next check
                        await anyio.sleep(0.2)
        group.cancel_scope.cancel()
    assert lost == ["ses_1"]  # ses_2, free in the gap, was taken again
