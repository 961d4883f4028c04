"""One writer per session across hosts: the lease as a PostgreSQL advisory lock on a connection of its own.

A session-level advisory lock belongs to the connection that took it, and the server drops it when that
connection ends, however it ends: a host that is SIGKILLed, loses power or drops off the network lets go of
its sessions as soon as the server sees the connection gone (at once for a closed socket; within the TCP
keepalive set below for a silent peer). Like the SQLite store's `flock`s, a lease needs no heartbeat and can
never outlive its holder.

The locks live on one dedicated connection per process, never on a pooled one (a pooled connection goes back to
the pool, and its locks with it). Inside the process the lease is re-entrant, as `FileLeases` is: the first
holder takes the lock, the last gives it back.

If the dedicated connection breaks (the database restarted), its locks are gone. `keep` (run by the runtime that
opened the store) checks the connection every `KEEP_SECONDS` while leases are held, and the next lease call
checks it too; a new connection takes the held sessions' locks again at once. A session another process took in
that gap is lost: `keep` hands it to its `on_lost` (the runtime stops the session's turn here, which is stored as
aborted), so two writers overlap at most until the keeper's next check (`KEEP_SECONDS`) after the database is
back.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any

import anyio
import psycopg
from attrs import define, field

from strata_core.logging import get_logger
from strata_core.session.lease import ReentrantHolders, poll_for_lease

log = get_logger(__name__)

KEEP_SECONDS = 2.0

OnWait = Callable[[], None]
LostLease = Callable[[str], Awaitable[None]]
"""What to do with a session whose lease another process took while the database was away (stop its turn)."""


def lease_key(session_id: str) -> int:
    """The session's advisory lock key: a signed 64-bit hash of its id (PostgreSQL's bigint)."""
    digest = hashlib.sha256(b"strata-session-lease:" + session_id.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@define(eq=False)
class AdvisoryLeases:
    """Leases as `pg_try_advisory_lock` on one connection of this process, re-entrant within it."""

    connect: Callable[[], Awaitable[psycopg.AsyncConnection[Any]]]
    """Opens the dedicated connection (autocommit)."""
    _conn: psycopg.AsyncConnection[Any] | None = field(default=None, init=False)
    _conn_lock: anyio.Lock = field(factory=anyio.Lock, init=False)
    _holders: ReentrantHolders = field(factory=ReentrantHolders, init=False)
    _lost: list[str] = field(factory=list, init=False)
    """Held sessions whose lock another process took while the connection was gone, for `keep` to hand on."""

    def hold(
        self, session_id: str, *, wait: bool = False, on_wait: OnWait | None = None
    ) -> AbstractAsyncContextManager[bool]:
        """Hold the session's lease for the block; yields whether this holder is the process's first."""
        take, give_back = partial(self._acquire, session_id, wait, on_wait), partial(self._release, session_id)
        return self._holders.hold(session_id, take, give_back)

    async def _acquire(self, session_id: str, wait: bool, on_wait: OnWait | None) -> None:
        async def take() -> bool | None:
            return True if await self._try_lock(session_id) else None

        await poll_for_lease(take, session_id, wait, on_wait)

    async def _try_lock(self, session_id: str) -> bool:
        for attempt in (1, 2):  # a connection found broken is replaced once: a lock asked on it was never taken
            conn = await self._connection()
            try:
                cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (lease_key(session_id),))
                row = await cursor.fetchone()
            except psycopg.OperationalError:
                if attempt == 2 or not conn.broken:
                    raise
                continue
            return bool(row and row[0])
        raise AssertionError("unreachable")

    async def _release(self, session_id: str) -> None:
        conn = self._conn
        if conn is None or conn.closed:
            return  # the connection went, and its locks with it
        try:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (lease_key(session_id),))
        except Exception as error:  # a broken connection has released every lock already
            log.warning("session lease release failed", session_id=session_id, error=str(error))

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        async with self._conn_lock:
            conn = self._conn
            if conn is not None and not conn.closed and not conn.broken:
                return conn
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()
            self._conn = await self.connect()
            await self._take_again(self._conn)
            return self._conn

    async def _take_again(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """On a new connection, the locks of the sessions this process still holds (its old one lost them)."""
        for session_id in sorted(self._holders.counts):
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s)", (lease_key(session_id),))
            row = await cursor.fetchone()
            if row and row[0]:
                log.warning("session lease taken again on a new connection", session_id=session_id)
            else:
                log.error(
                    "session lease lost: another process took it while the database was away", session_id=session_id
                )
                self._lost.append(session_id)

    async def keep(self, on_lost: LostLease | None = None, interval: float = KEEP_SECONDS) -> None:
        """Until cancelled: while leases are held, check their connection, replace a broken one (taking the
        locks again), and hand each lease found lost to `on_lost`."""
        while True:
            await anyio.sleep(interval)
            if self._holders.counts:
                await self._check()
            while self._lost:
                session_id = self._lost.pop(0)
                if on_lost is not None:
                    await on_lost(session_id)

    async def _check(self) -> None:
        try:
            conn = await self._connection()
            await conn.execute("SELECT 1")
        except psycopg.OperationalError:
            try:
                await self._connection()  # found broken by the probe: replaced now
            except Exception as error:
                log.warning("session leases: the database is away", error=str(error))
        except Exception as error:
            log.warning("session leases: the database is away", error=str(error))

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            async with self._conn_lock:
                conn, self._conn = self._conn, None
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
