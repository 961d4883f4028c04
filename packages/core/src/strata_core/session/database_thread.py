"""One thread of a store's own that runs its connection's calls in order, so the event loop never blocks on disk.

A store makes ~150 calls in a `strata run "say hello"` and several a step. Handing each to anyio's worker pool
(`anyio.to_thread.run_sync`) costs ~45-60 us of CPU a call on this project's 2-core machine: a capacity
limiter, a worker taken from the idle pool, a cancel scope and the wake-up. A thread that belongs to the store
and a queue it reads cost ~18 us: the call is queued and the loop is woken with its result. The store's calls
are one at a time anyway (one connection, serialised by its access gate), so one thread loses nothing.

As with `anyio.to_thread.run_sync`, a caller cancelled while its call runs still waits for the call to finish
(a write happens whole or not at all); the cancellation reaches it at its next checkpoint. Under an event loop
other than asyncio's, calls go to anyio's worker threads instead.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import sniffio

T = TypeVar("T")

_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


class DatabaseThread:
    """Runs `work(*args)` calls one after another in a thread of its own, started at the first call and ended
    by `stop()` (a daemon: a store left open never holds the process at exit)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        if sniffio.current_async_library() != "asyncio":
            return await anyio.to_thread.run_sync(work, *args)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._started().put((loop, future, work, args))
        with anyio.CancelScope(shield=True):  # the call runs to its end: the caller waits for it, as documented
            result = await future
        return result

    def stop(self) -> None:
        """End the thread once the calls queued before this one are done; a later `run` starts a new one."""
        if self._thread is not None:
            self._calls.put(None)
            self._thread = None

    def _started(self) -> queue.SimpleQueue[_Call | None]:
        if self._thread is None:
            # A queue of its own: a stopped thread still finishing its calls never takes the new one's work.
            self._calls = queue.SimpleQueue()
            self._thread = threading.Thread(target=_serve, args=(self._calls,), name=self._name, daemon=True)
            self._thread.start()
        return self._calls


def _serve(calls: queue.SimpleQueue[_Call | None]) -> None:
    while (call := calls.get()) is not None:
        loop, future, work, args = call
        try:
            result = work(*args)
        except BaseException as error:  # handed to the caller, which raises it as its own
            _settle(loop, future, error, failed=True)
        else:
            _settle(loop, future, result, failed=False)


def _settle(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], value: Any, *, failed: bool) -> None:
    def settle() -> None:
        if not future.done():
            if failed:
                future.set_exception(value)
            else:
                future.set_result(value)

    try:
        loop.call_soon_threadsafe(settle)
    except RuntimeError:  # the loop closed while the call ran: nobody waits for its result any more
        return
