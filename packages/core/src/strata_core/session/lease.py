"""One writer per session: a lease a process holds while it runs a turn in the session.

Two `strata run -c` on one session would otherwise both append to it and interleave their turns. The SQLite
store's leases are OS file locks (`flock`) on one small file per session beside the database: the kernel
drops a lock when its holder dies, however it dies, so a lease can never outlive a crashed process and needs
no heartbeat. The last holder removes the file as it lets go, so the directory holds only the leases of
turns running now; a holder checks, once it has the lock, that the file it locked is still the one at the
path (another holder may have removed it meanwhile) and starts again if not; a crashed holder's file goes
with the session's next turn. Inside one process the lease is re-entrant (the loop already runs one turn per
session and joins the rest), so nested holders share it. `InProcessLeases` serves the memory store.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TypeVar

import anyio
from attrs import define, field

from strata_core.errors import StrataError

POLL_SECONDS = 0.1
"""How often a waiting holder tries again (an flock cannot be awaited)."""


class SessionBusyError(StrataError, RuntimeError):
    """A turn is running in the session: in another process, or (`elsewhere=False`) in this one."""

    def __init__(self, session_id: str, *, elsewhere: bool = True) -> None:
        where = " in another strata process" if elsewhere else ""
        super().__init__(
            f"session is busy: {session_id} has a turn running{where}; "
            "wait for it to finish, or continue in a new session"
        )
        self.session_id = session_id


OnWait = Callable[[], None]
T = TypeVar("T")


async def poll_for_lease(
    take: Callable[[], Awaitable[T | None]], session_id: str, wait: bool, on_wait: OnWait | None
) -> T:
    """What `take` answers once it takes the lease (None while another process holds it): busy elsewhere,
    `SessionBusyError` at once, or with `wait`, a poll until it is free (`on_wait` is called once first, to say
    so); cancelling the wait is always possible. Every kind of lease waits this way."""
    told = False
    while (taken := await take()) is None:
        if not wait:
            raise SessionBusyError(session_id)
        if not told and on_wait is not None:
            on_wait()
            told = True
        await anyio.sleep(POLL_SECONDS)
    return taken


@define(eq=False)
class ReentrantHolders:
    """The holders of each session's lease in this process: the first takes the lease, the last gives it back, and
    the holders between share it (every kind of lease is re-entrant this way)."""

    counts: dict[str, int] = field(factory=dict)

    @asynccontextmanager
    async def hold(
        self, session_id: str, take: Callable[[], Awaitable[None]], give_back: Callable[[], Awaitable[None]]
    ) -> AsyncIterator[bool]:
        """Hold the session's lease for the block; yields whether this holder is the process's first."""
        first = session_id not in self.counts
        if first:
            await take()
        self.counts[session_id] = self.counts.get(session_id, 0) + 1
        try:
            yield first
        finally:
            self.counts[session_id] -= 1
            if not self.counts[session_id]:
                del self.counts[session_id]
                with anyio.CancelScope(shield=True):
                    await give_back()


async def _nothing() -> None:
    return None


@define(eq=False)
class FileLeases:
    """Leases as `flock`s on `<directory>/<session>.lock`, re-entrant within the process."""

    directory: Path
    _holders: ReentrantHolders = field(factory=ReentrantHolders, init=False)
    _fds: dict[str, int] = field(factory=dict, init=False)
    """session id -> the descriptor holding its lock, while this process holds the lease."""

    def hold(
        self, session_id: str, *, wait: bool = False, on_wait: OnWait | None = None
    ) -> AbstractAsyncContextManager[bool]:
        """Hold the session's lease for the block; yields whether this holder is the process's first.

        Busy elsewhere: `SessionBusyError` at once, or with `wait`, a poll until it is free (`on_wait` is
        called once first, to say so); cancelling the wait is always possible.
        """

        async def take() -> None:
            self._fds[session_id] = await self._acquire(session_id, wait, on_wait)

        async def give_back() -> None:
            fd = self._fds.pop(session_id)
            # Removed while still locked: a holder that opened it before this sees a file no longer at the path
            # once it gets the lock, and opens a fresh one (see `_lock_now`).
            with contextlib.suppress(OSError):
                (self.directory / _file_name(session_id)).unlink()
            os.close(fd)  # closing the descriptor releases the lock

        return self._holders.hold(session_id, take, give_back)

    async def _acquire(self, session_id: str, wait: bool, on_wait: OnWait | None) -> int:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / _file_name(session_id)

        async def take() -> int | None:
            return _lock_now(path)

        return await poll_for_lease(take, session_id, wait, on_wait)


def _lock_now(path: Path) -> int | None:
    """A descriptor of the lease file at `path`, locked; None while another holder has it."""
    import fcntl  # POSIX only; imported here so the memory store works everywhere

    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        if _still_at(fd, path):
            return fd
        os.close(fd)  # its last holder removed it after we opened it: lock the one there now


@define(eq=False)
class InProcessLeases:
    """Leases for a store that lives in one process: re-entrant, and never busy elsewhere."""

    _holders: ReentrantHolders = field(factory=ReentrantHolders, init=False)

    def hold(
        self, session_id: str, *, wait: bool = False, on_wait: OnWait | None = None
    ) -> AbstractAsyncContextManager[bool]:
        return self._holders.hold(session_id, _nothing, _nothing)


def _still_at(fd: int, path: Path) -> bool:
    """Whether the file open on `fd` is the one `path` names (not removed, not replaced)."""
    try:
        here, opened = path.stat(), os.fstat(fd)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (opened.st_dev, opened.st_ino)


def _file_name(session_id: str) -> str:
    # Session ids are safe file names today; a hash keeps an imported or hostile id from naming a path.
    return hashlib.sha256(session_id.encode()).hexdigest()[:32] + ".lock"
