"""The embedded session store: one SQLite file (WAL), sessions, messages and parts as JSON documents.

Durability: the database runs in WAL mode with `synchronous=NORMAL`. A transaction is complete once its
commit record is in the WAL file; with NORMAL, SQLite skips the fsync at each commit and syncs at
checkpoints. What the process wrote is then in the operating system's page cache, which survives the death
of the process (SIGKILL, a crash, an OOM kill): a process killed at any moment leaves the last committed
write on disk and never a torn one. Only a power loss or kernel crash can lose the most recent commits,
and even then the file stays consistent (never corrupt). That is the guarantee Strata needs, at a fraction
of FULL's cost per streamed part.

Concurrency: one connection, used by one thread at a time. Each call takes the access gate, then runs its
SQL in the store's own thread (`DatabaseThread`) so the event loop never blocks on disk. A call that is
cancelled while its SQL runs still waits for the thread to finish, so a write either happened whole or not
at all.

Storage failures (a full disk, a read-only file, an I/O error, a lock held past `busy_timeout_ms`) come out as
a `StorageError` naming the file and what to do (`storage_errors.py`); the transaction they hit is rolled
back whole.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import TypeVar

import anyio
from attrs import define, field

from strata_core.clock import Clock, SystemClock
from strata_core.message import AssistantMessage, Message, MessageWithParts, Part, ToolPart, UserMessage
from strata_core.serialization import (
    message_from_json,
    message_to_json,
    part_from_json,
    part_to_json,
    session_from_json,
    session_to_json,
)
from strata_core.session import migrations
from strata_core.session._gate import AccessGate
from strata_core.session.database_thread import DatabaseThread
from strata_core.session.lease import FileLeases
from strata_core.session.storage_errors import storage_error
from strata_core.session.store import StoreClosedError, StoreLifetime, owner_error
from strata_core.session_info import SessionInfo

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

_UNFINISHED_TOOLS = (
    "SELECT data FROM part WHERE session_id = ? AND json_extract(data, '$.type') = 'tool' "
    "AND json_extract(data, '$.state.status') IN ('pending', 'running') ORDER BY seq"
)
_NEWEST_MESSAGE = "SELECT data FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1"
BUSY_TIMEOUT_MS = 5000
"""How long a write waits for another process holding the database (two `strata` runs on one data dir)."""


@define(eq=False)
class SqliteSessionStore(StoreLifetime):
    """A `SessionStore` in one SQLite file. The constructor does no I/O: `connect()` (or `open()`) does."""

    path: Path
    busy_timeout_ms: int = BUSY_TIMEOUT_MS
    clock: Clock = field(factory=SystemClock)
    """Stamps the schema migrations it applies (records carry their own times)."""
    _conn: sqlite3.Connection | None = field(default=None, init=False)
    _gate: AccessGate = field(factory=AccessGate, init=False)
    _thread: DatabaseThread = field(factory=lambda: DatabaseThread("strata-sqlite"), init=False)
    _leases: FileLeases = field(init=False)

    def __attrs_post_init__(self) -> None:
        self._leases = FileLeases(self.path.with_name(self.path.name + "-leases"))

    async def unfinished_tool_parts(self, session_id: str) -> list[ToolPart]:
        def work(conn: sqlite3.Connection) -> list[ToolPart]:
            rows = conn.execute(_UNFINISHED_TOOLS, (session_id,)).fetchall()
            return [part for (data,) in rows if isinstance(part := part_from_json(data), ToolPart)]

        return await self._read(work)

    def lease(
        self, session_id: str, *, wait: bool = False, on_wait: Callable[[], None] | None = None
    ) -> AbstractAsyncContextManager[bool]:
        return self._leases.hold(session_id, wait=wait, on_wait=on_wait)

    @classmethod
    def open(cls, path: Path, clock: Clock | None = None) -> SqliteSessionStore:
        """`async with SqliteSessionStore.open(path) as store:` connects, migrates, and closes on exit."""
        return cls(path, clock=clock or SystemClock())

    async def connect(self) -> None:
        """Open the database file (creating it and its directory), set it up and migrate it to the newest schema."""
        async with self._gate.access():
            if self._conn is None:
                with self._reported():
                    try:
                        self._conn = await self._thread.run(self._connect_blocking)
                    except BaseException:
                        self._thread.stop()
                        raise

    def _connect_blocking(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: autocommit, so every transaction below is an explicit BEGIN ... COMMIT.
        # check_same_thread=False: opened and used in the store's thread, or anyio's workers under another event loop
        # (taking turns, serialised by the gate).
        conn = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_timeout_ms / 1000
        )
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # see the module docstring for why this is durable enough
            conn.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            migrations.migrate(conn, str(self.path), clock=self.clock)
        except BaseException:
            conn.close()
            raise
        return conn

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            async with self._gate.access():
                conn, self._conn = self._conn, None
                if conn is not None:
                    await self._thread.run(conn.close)
                self._thread.stop()

    # -----------------------------------------------------------------------------------------------------
    # Running SQL

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError(
                f"the session store at {self.path} is not open: use `async with SqliteSessionStore.open(path)`"
            )
        return self._conn

    @contextmanager
    def _reported(self) -> Iterator[None]:
        """SQLite's storage failures as the `StorageError` they mean; any other error as it is."""
        try:
            yield
        except sqlite3.Error as error:
            reported = storage_error(error, self.path, busy_timeout_ms=self.busy_timeout_ms)
            if reported is None:
                raise
            raise reported from error

    async def _run(self, work: Work[T]) -> T:
        async with self._gate.access():
            conn = self._connection()
            with self._reported():
                return await self._thread.run(work, conn)

    async def _write(self, work: Work[T]) -> T:
        return await self._run(lambda conn: _in_transaction(conn, work, "BEGIN IMMEDIATE"))

    async def _read(self, work: Work[T]) -> T:
        # A read transaction gives the several SELECTs of one call a single snapshot, even while another
        # process writes.
        return await self._run(lambda conn: _in_transaction(conn, work, "BEGIN"))

    @asynccontextmanager
    async def batch(self) -> AsyncIterator[None]:
        async with self._gate.hold() as outermost:
            if not outermost:
                yield  # a nested batch joins the outer one, which commits
                return
            conn = self._connection()
            with self._reported():
                await self._thread.run(conn.execute, "BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                with anyio.CancelScope(shield=True), self._reported():
                    await self._thread.run(_rollback, conn)
                raise
            with anyio.CancelScope(shield=True), self._reported():
                await self._thread.run(_commit, conn)

    # -----------------------------------------------------------------------------------------------------
    # Sessions

    async def put_session(self, info: SessionInfo) -> None:
        row = (info.id, info.project_id, info.parent_id, info.time.created, info.time.updated, session_to_json(info))
        await self._write(lambda conn: conn.execute(_UPSERT_SESSION, row))

    async def get_session(self, session_id: str) -> SessionInfo | None:
        def work(conn: sqlite3.Connection) -> SessionInfo | None:
            row = conn.execute("SELECT data FROM session WHERE id = ?", (session_id,)).fetchone()
            return None if row is None else session_from_json(row[0])

        return await self._read(work)

    async def list_sessions(self, project_id: str | None = None) -> list[SessionInfo]:
        args: tuple[str, ...] = ()
        # Session ids are descending (OpenCode's `Identifier.descending`): on a tie, the smaller id is the newer one.
        query = "SELECT data FROM session ORDER BY time_updated DESC, id"
        if project_id is not None:
            query = "SELECT data FROM session WHERE project_id = ? ORDER BY time_updated DESC, id"
            args = (project_id,)
        return await self._read(lambda conn: [session_from_json(r[0]) for r in conn.execute(query, args)])

    async def children(self, parent_id: str) -> list[SessionInfo]:
        # Session ids are descending (OpenCode's `Identifier.descending`): on a tie, the larger id is the older one.
        query = "SELECT data FROM session WHERE parent_id = ? ORDER BY time_created, id DESC"
        return await self._read(lambda conn: [session_from_json(r[0]) for r in conn.execute(query, (parent_id,))])

    async def delete_session(self, session_id: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM part WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM message WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM session WHERE id = ?", (session_id,))

        await self._write(work)

    # -----------------------------------------------------------------------------------------------------
    # Messages and parts

    async def put_message(self, message: Message) -> None:
        await self.put_records((message,))

    async def put_part(self, part: Part) -> None:
        await self.put_records((part,))

    async def put_records(self, records: Sequence[Message | Part]) -> None:
        """`put_message` or `put_part` for each, in order, as one transaction (one trip to the database
        thread instead of one each: what a step's writer stores at a barrier)."""
        rows = [(record, *_upsert(record)) for record in records]

        def work(conn: sqlite3.Connection) -> None:
            for record, query, row in rows:
                if conn.execute(query, row).rowcount == 0:  # the id is another owner's: the upsert's WHERE held
                    raise owner_error(record)

        await self._write(work)

    async def delete_message(self, session_id: str, message_id: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM part WHERE session_id = ? AND message_id = ?", (session_id, message_id))
            conn.execute("DELETE FROM message WHERE session_id = ? AND id = ?", (session_id, message_id))

        await self._write(work)

    async def delete_part(self, session_id: str, message_id: str, part_id: str) -> None:
        query = "DELETE FROM part WHERE session_id = ? AND message_id = ? AND id = ?"
        await self._write(lambda conn: conn.execute(query, (session_id, message_id, part_id)))

    async def messages(self, session_id: str) -> list[MessageWithParts]:
        return await self._read(lambda conn: _load_messages(conn, session_id))

    async def newest_message_id(self, session_id: str) -> str | None:
        return await self._read(lambda conn: _newest_message_id(conn, session_id))

    async def message_session(self, message_id: str) -> str | None:
        def work(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT session_id FROM message WHERE id = ?", (message_id,)).fetchone()
            return None if row is None else str(row[0])

        return await self._read(work)

    async def newest_message(self, session_id: str) -> Message | None:
        def work(conn: sqlite3.Connection) -> Message | None:
            row = conn.execute(_NEWEST_MESSAGE, (session_id,)).fetchone()
            return None if row is None else message_from_json(row[0])

        return await self._read(work)


_UPSERT_SESSION = """
INSERT INTO session (id, project_id, parent_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, parent_id = excluded.parent_id,
    time_created = excluded.time_created, time_updated = excluded.time_updated, data = excluded.data
"""
_UPSERT_MESSAGE = """
INSERT INTO message (id, session_id, time_created, data) VALUES (?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET time_created = excluded.time_created, data = excluded.data
    WHERE message.session_id = excluded.session_id
"""
# Updating in place keeps the row's `seq`, so a replaced part keeps its position. A record never moves: an id
# another owner holds updates nothing (no row changed), which `put_records` refuses.
_UPSERT_PART = """
INSERT INTO part (id, session_id, message_id, data) VALUES (?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET data = excluded.data
    WHERE part.session_id = excluded.session_id AND part.message_id = excluded.message_id
"""


def _upsert(record: Message | Part) -> tuple[str, tuple[object, ...]]:
    """The statement that stores `record` (replacing an earlier version of it) and its values."""
    if isinstance(record, UserMessage | AssistantMessage):
        return _UPSERT_MESSAGE, (record.id, record.session_id, record.time.created, message_to_json(record))
    return _UPSERT_PART, (record.id, record.session_id, record.message_id, part_to_json(record))


def _newest_message_id(conn: sqlite3.Connection, session_id: str) -> str | None:
    (newest,) = conn.execute("SELECT max(id) FROM message WHERE session_id = ?", (session_id,)).fetchone()
    return str(newest) if newest is not None else None


def _load_messages(conn: sqlite3.Connection, session_id: str) -> list[MessageWithParts]:
    rows = conn.execute("SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (session_id,)).fetchall()
    parts: dict[str, list[Part]] = {message_id: [] for message_id, _ in rows}
    query = "SELECT message_id, data FROM part WHERE session_id = ? ORDER BY seq"
    for message_id, data in conn.execute(query, (session_id,)):
        bucket = parts.get(message_id)
        if bucket is not None:  # a part whose message was never stored stays invisible
            bucket.append(part_from_json(data))
    return [MessageWithParts(message_from_json(data), parts[message_id]) for message_id, data in rows]


def _in_transaction(conn: sqlite3.Connection, work: Work[T], begin: str) -> T:
    if conn.in_transaction:  # inside a batch: the batch decides when to commit
        return work(conn)
    conn.execute(begin)
    try:
        result = work(conn)
    except BaseException:
        _rollback(conn)
        raise
    _commit(conn)
    return result


def _commit(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("COMMIT")
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")
