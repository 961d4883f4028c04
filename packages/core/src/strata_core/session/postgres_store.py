"""The shared session store: one PostgreSQL database that several `strata` processes, on several hosts, use at once.

Selected by a `postgresql://` URL (`STRATA_DATABASE_URL`, `--database`); SQLite stays the default. The tables are
the SQLite store's (sessions, messages and parts as JSON documents, parts ordered by a sequence given at first
insert), in a schema versioned by `postgres_migrations.py`.

Concurrency: calls take a connection from a pool (psycopg's) and run as one transaction each, so many tasks and
many hosts read and write in parallel. A batch pins one connection and one transaction for the task that opened
it; other tasks of this process wait for it to end, as the SQLite store's do. A write runs shielded from
cancellation: it is committed whole or rolled back whole, never left half done.

Faults: a connection found broken (the database restarted, the network dropped it) is replaced and the call
tried once more, which is safe because every write is an idempotent upsert or delete of named rows; the retry
waits up to `pool_timeout` for the pool to reconnect, so a turn rides out a database restart that short. Inside a
batch nothing is retried (the transaction is gone) and the batch fails whole. A database that cannot be reached,
a pool with no free connection within `pool_timeout`, or a statement slower than `statement_timeout_ms` comes
out as a `DatabaseUnavailableError` naming the database (password hidden) and what to check.

The one-writer lease is an advisory lock (`postgres_lease.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from typing import Any, Literal, TypeVar

import anyio
from attrs import define, field

from strata_core.clock import Clock, SystemClock
from strata_core.extras import needing
from strata_core.message import Message, MessageWithParts, Part, ToolPart
from strata_core.serialization import (
    message_from_json,
    message_to_json,
    part_from_json,
    part_to_json,
    session_from_json,
    session_to_json,
)
from strata_core.session import postgres_migrations
from strata_core.session.database_url import DatabaseUnavailableError, redacted
from strata_core.session.store import StoreClosedError, StoreLifetime, owner_error
from strata_core.session_info import SessionInfo

with needing("postgres", "a PostgreSQL session store (STRATA_DATABASE_URL)"):
    import psycopg
    import psycopg_pool

    from strata_core.session.postgres_events import NotifyChannel
    from strata_core.session.postgres_lease import AdvisoryLeases, LostLease

T = TypeVar("T")
Scope = Literal["statement", "transaction", "snapshot"]
Connection = psycopg.AsyncConnection[Any]
Work = Callable[[Connection], Awaitable[T]]

CONNECT_TIMEOUT_SECONDS = 10
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3}
"""A host that vanishes without closing its socket is noticed within ~11 s, its leases then released."""


@define(eq=False)
class PostgresSessionStore(StoreLifetime):
    """A `SessionStore` in a PostgreSQL database. The constructor does no I/O: `connect()` (or `open()`) does."""

    url: str
    clock: Clock = field(factory=SystemClock)
    """Stamps the schema migrations it applies (records carry their own times)."""
    pool_size: int = 10
    pool_timeout: float = 10.0
    """How long a call waits for a free connection before failing (a full pool)."""
    statement_timeout_ms: int = 30_000
    _pool: psycopg_pool.AsyncConnectionPool[Connection] | None = field(default=None, init=False)
    _leases: AdvisoryLeases = field(init=False)
    _batch_lock: anyio.Lock = field(factory=anyio.Lock, init=False)
    _batch_task: int | None = field(default=None, init=False)
    _batch_conn: Connection | None = field(default=None, init=False)

    def __attrs_post_init__(self) -> None:
        self._leases = AdvisoryLeases(self._new_connection)

    @property
    def where(self) -> str:
        """The database as messages name it (no password)."""
        return redacted(self.url)

    @classmethod
    def open(cls, url: str, clock: Clock | None = None) -> PostgresSessionStore:
        """`async with PostgresSessionStore.open(url) as store:` connects, migrates, and closes on exit."""
        return cls(url, clock=clock or SystemClock())

    async def connect(self) -> None:
        """Reach the database (a clear error if it cannot be), migrate it, and open the pool."""
        if self._pool is not None:
            return
        with self._reported():
            first = await self._new_connection()  # one direct connection first: its failure says why
            try:
                await postgres_migrations.migrate(first, self.where, self.clock.now_ms())
            finally:
                await first.close()
            pool: psycopg_pool.AsyncConnectionPool[Connection] = psycopg_pool.AsyncConnectionPool(
                self.url,
                min_size=1,
                max_size=self.pool_size,
                timeout=self.pool_timeout,
                kwargs=self._connection_options(),
                open=False,
            )
            await pool.open(wait=True, timeout=CONNECT_TIMEOUT_SECONDS)
        self._pool = pool

    def _connection_options(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "connect_timeout": CONNECT_TIMEOUT_SECONDS,
            "options": f"-c statement_timeout={int(self.statement_timeout_ms)}",
            "application_name": "strata",
            **KEEPALIVE,
        }

    async def _new_connection(self) -> Connection:
        with self._reported():
            return await psycopg.AsyncConnection.connect(self.url, **self._connection_options())

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._leases.close()
            pool, self._pool = self._pool, None
            if pool is not None:
                await pool.close()

    async def keep_leases(self, on_lost: LostLease | None = None) -> None:
        """Until cancelled: keep this process's leases held across a lost connection, handing a lease another
        process took meanwhile to `on_lost` (`postgres_lease.py`)."""
        await self._leases.keep(on_lost)

    def event_channel(self) -> NotifyChannel:
        """A new end of the event channel of the processes sharing this database (`postgres_events.py`)."""
        return NotifyChannel(self.url)

    def lease(
        self, session_id: str, *, wait: bool = False, on_wait: Callable[[], None] | None = None
    ) -> AbstractAsyncContextManager[bool]:
        return self._leases.hold(session_id, wait=wait, on_wait=on_wait)

    # -----------------------------------------------------------------------------------------------------
    # Running SQL

    @contextmanager
    def _reported(self) -> Iterator[None]:
        """A database that cannot be reached, a full pool or a slow statement as the error a person can act on."""
        try:
            yield
        except psycopg_pool.PoolTimeout as error:
            raise DatabaseUnavailableError(
                f"the session database {self.where} gave no connection within {self.pool_timeout:g} s: it is not "
                f"answering (check that PostgreSQL is running there), or all {self.pool_size} of this process's "
                "connections are busy; nothing of the call was kept"
            ) from error
        except psycopg.errors.QueryCanceled as error:
            raise DatabaseUnavailableError(
                f"a statement on the session database {self.where} ran longer than "
                f"{self.statement_timeout_ms / 1000:g} s and was cancelled; nothing of it was kept ({error})"
            ) from error
        except psycopg.OperationalError as error:
            detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise DatabaseUnavailableError(
                f"the session database {self.where} cannot be reached: {detail}. Check that PostgreSQL is running "
                "there and accepts this user, or unset STRATA_DATABASE_URL to use the local SQLite store."
            ) from error

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[tuple[Connection, bool]]:
        """A connection for one call, and whether it is a batch's (already in its transaction)."""
        if self._batch_task is not None and self._batch_task == anyio.get_current_task().id:
            assert self._batch_conn is not None
            yield self._batch_conn, True
            return
        if self._batch_lock.locked():  # another task's batch: wait for it to end, as with SQLite
            async with self._batch_lock:
                pass
        pool = self._pool
        if pool is None:
            raise StoreClosedError(
                f"the session store at {self.where} is not open: use `async with PostgresSessionStore.open(url)`"
            )
        async with pool.connection() as conn:
            yield conn, False

    async def _run(self, work: Work[T], scope: Scope) -> T:
        """`work` as one statement (autocommit: atomic on its own, one round trip), in a transaction of its own, or
        in the batch's; tried once more on a connection found broken."""
        for attempt in (1, 2):
            with self._reported():
                try:
                    async with self._connection() as (conn, in_batch):
                        if in_batch or scope == "statement":
                            return await work(conn)
                        async with conn.transaction():
                            if scope == "snapshot":  # several SELECTs of one call see one state while others write
                                await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                            return await work(conn)
                except psycopg.errors.QueryCanceled:
                    raise  # too slow: trying again would only double the wait
                except psycopg.OperationalError:
                    if attempt == 2 or self._in_own_batch():
                        raise
                    await self._drop_broken_connections()
        raise AssertionError("unreachable")

    async def _drop_broken_connections(self) -> None:
        """After the database restarted, every idle connection of the pool is dead: drop them all, so the retry
        waits (up to `pool_timeout`) for a new one rather than taking the next dead one."""
        pool = self._pool
        if pool is not None:
            await pool.check()

    def _in_own_batch(self) -> bool:
        return self._batch_task is not None and self._batch_task == anyio.get_current_task().id

    async def _write(self, work: Work[T], scope: Scope = "statement") -> T:
        """A write of one statement, or (`scope="transaction"`) of several together."""
        with anyio.CancelScope(shield=True):  # whole or not at all; bounded by the statement timeout
            result = await self._run(work, scope)
        return result

    async def _read(self, work: Work[T], scope: Scope = "statement") -> T:
        """A read of one statement, or (`scope="snapshot"`) of several seeing one state."""
        return await self._run(work, scope)

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        if self._in_own_batch():
            yield  # a nested batch joins the outer one, which commits
            return
        async with self._batch_lock:
            pool = self._pool
            if pool is None:
                raise StoreClosedError(f"the session store at {self.where} is not open")
            with self._reported():
                async with pool.connection() as conn:
                    self._batch_task, self._batch_conn = anyio.get_current_task().id, conn
                    try:
                        async with conn.transaction():
                            yield
                    finally:
                        self._batch_task, self._batch_conn = None, None

    # -----------------------------------------------------------------------------------------------------
    # Sessions

    async def put_session(self, info: SessionInfo) -> None:
        row = (info.id, info.project_id, info.parent_id, info.time.created, info.time.updated, session_to_json(info))
        await self._write(lambda conn: conn.execute(_UPSERT_SESSION, row))

    async def get_session(self, session_id: str) -> SessionInfo | None:
        async def work(conn: Connection) -> SessionInfo | None:
            row = await (await conn.execute("SELECT data FROM session WHERE id = %s", (session_id,))).fetchone()
            return None if row is None else session_from_json(row[0])

        return await self._read(work)

    async def list_sessions(self, project_id: str | None = None) -> list[SessionInfo]:
        async def work(conn: Connection) -> list[SessionInfo]:
            # Session ids are descending (OpenCode's `Identifier.descending`): on a tie, the smaller id is newer.
            if project_id is None:
                cursor = await conn.execute("SELECT data FROM session ORDER BY time_updated DESC, id")
            else:
                query = "SELECT data FROM session WHERE project_id = %s ORDER BY time_updated DESC, id"
                cursor = await conn.execute(query, (project_id,))
            return [session_from_json(data) for (data,) in await cursor.fetchall()]

        return await self._read(work)

    async def children(self, parent_id: str) -> list[SessionInfo]:
        async def work(conn: Connection) -> list[SessionInfo]:
            query = "SELECT data FROM session WHERE parent_id = %s ORDER BY time_created, id DESC"
            return [session_from_json(data) for (data,) in await (await conn.execute(query, (parent_id,))).fetchall()]

        return await self._read(work)

    async def delete_session(self, session_id: str) -> None:
        async def work(conn: Connection) -> None:
            await conn.execute("DELETE FROM part WHERE session_id = %s", (session_id,))
            await conn.execute("DELETE FROM message WHERE session_id = %s", (session_id,))
            await conn.execute("DELETE FROM session WHERE id = %s", (session_id,))

        await self._write(work, "transaction")

    # -----------------------------------------------------------------------------------------------------
    # Messages and parts

    async def put_message(self, message: Message) -> None:
        row = (message.id, message.session_id, message.time.created, message_to_json(message))
        await self._put(message, _UPSERT_MESSAGE, row)

    async def put_part(self, part: Part) -> None:
        row = (part.id, part.session_id, part.message_id, part_to_json(part))
        await self._put(part, _UPSERT_PART, row)

    async def _put(self, record: Message | Part, query: str, row: tuple[object, ...]) -> None:
        async def work(conn: Connection) -> None:
            if (await conn.execute(query, row)).rowcount == 0:  # the id is another owner's: the upsert's WHERE held
                raise owner_error(record)

        await self._write(work)

    async def delete_message(self, session_id: str, message_id: str) -> None:
        async def work(conn: Connection) -> None:
            args = (session_id, message_id)
            await conn.execute("DELETE FROM part WHERE session_id = %s AND message_id = %s", args)
            await conn.execute("DELETE FROM message WHERE session_id = %s AND id = %s", args)

        await self._write(work, "transaction")

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None:
        query = "DELETE FROM part WHERE session_id = %s AND message_id = %s AND id = %s"
        await self._write(lambda conn: conn.execute(query, (session_id, message_id, part_id)))

    async def messages(self, session_id: str) -> list[MessageWithParts]:
        return await self._read(lambda conn: _load_messages(conn, session_id), "snapshot")

    async def message_session(self, message_id: str) -> str | None:
        async def work(conn: Connection) -> str | None:
            query = "SELECT session_id FROM message WHERE id = %s"
            row = await (await conn.execute(query, (message_id,))).fetchone()
            return None if row is None else str(row[0])

        return await self._read(work)

    async def newest_message_id(self, session_id: str) -> str | None:
        async def work(conn: Connection) -> str | None:
            query = "SELECT max(id) FROM message WHERE session_id = %s"
            row = await (await conn.execute(query, (session_id,))).fetchone()
            return None if row is None or row[0] is None else str(row[0])

        return await self._read(work)

    async def newest_message(self, session_id: str) -> Message | None:
        async def work(conn: Connection) -> Message | None:
            query = "SELECT data FROM message WHERE session_id = %s ORDER BY id DESC LIMIT 1"
            row = await (await conn.execute(query, (session_id,))).fetchone()
            return None if row is None else message_from_json(row[0])

        return await self._read(work)

    async def unfinished_tool_parts(self, session_id: str) -> list[ToolPart]:
        async def work(conn: Connection) -> list[ToolPart]:
            rows = await (await conn.execute(_UNFINISHED_TOOLS, (session_id,))).fetchall()
            return [part for (data,) in rows if isinstance(part := part_from_json(data), ToolPart)]

        return await self._read(work)

    async def part(self, session_id: str, part_id: str) -> Part | None:
        """One stored part by id (what another host's event names), or None."""

        async def work(conn: Connection) -> Part | None:
            query = "SELECT data FROM part WHERE session_id = %s AND id = %s"
            row = await (await conn.execute(query, (session_id, part_id))).fetchone()
            return None if row is None else part_from_json(row[0])

        return await self._read(work)


_UNFINISHED_TOOLS = (
    "SELECT data FROM part WHERE session_id = %s AND data::jsonb ->> 'type' = 'tool' "
    "AND data::jsonb -> 'state' ->> 'status' IN ('pending', 'running') ORDER BY seq"
)
_UPSERT_SESSION = """
INSERT INTO session (id, project_id, parent_id, time_created, time_updated, data) VALUES (%s, %s, %s, %s, %s, %s)
ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, parent_id = excluded.parent_id,
    time_created = excluded.time_created, time_updated = excluded.time_updated, data = excluded.data
"""
_UPSERT_MESSAGE = """
INSERT INTO message (id, session_id, time_created, data) VALUES (%s, %s, %s, %s)
ON CONFLICT (id) DO UPDATE SET time_created = excluded.time_created, data = excluded.data
    WHERE message.session_id = excluded.session_id
"""
# Updating in place keeps the row's `seq`, so a replaced part keeps its position. A record never moves: an id
# another owner holds updates no row, which `_put` refuses.
_UPSERT_PART = """
INSERT INTO part (id, session_id, message_id, data) VALUES (%s, %s, %s, %s)
ON CONFLICT (id) DO UPDATE SET data = excluded.data
    WHERE part.session_id = excluded.session_id AND part.message_id = excluded.message_id
"""


async def _load_messages(conn: Connection, session_id: str) -> list[MessageWithParts]:
    query = "SELECT id, data FROM message WHERE session_id = %s ORDER BY id"
    rows = await (await conn.execute(query, (session_id,))).fetchall()
    parts: dict[str, list[Part]] = {message_id: [] for message_id, _ in rows}
    query = "SELECT message_id, data FROM part WHERE session_id = %s ORDER BY seq"
    for message_id, data in await (await conn.execute(query, (session_id,))).fetchall():
        bucket = parts.get(message_id)
        if bucket is not None:  # a part whose message was never stored stays invisible
            bucket.append(part_from_json(data))
    return [MessageWithParts(message_from_json(data), parts[message_id]) for message_id, data in rows]
