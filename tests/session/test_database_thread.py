"""The store's own thread: calls run there one after another, failures come back as raised, and a cancelled
caller still waits for its call to finish."""

from __future__ import annotations

import threading
import time

import anyio
import pytest

from strata_core.session.database_thread import DatabaseThread

pytestmark = pytest.mark.anyio


async def test_calls_run_in_order_on_one_thread_that_is_not_the_loops() -> None:
    worker = DatabaseThread("test-db")
    seen: list[tuple[int, str]] = []

    def record(n: int) -> int:
        seen.append((n, threading.current_thread().name))
        return n * 2

    results = [await worker.run(record, n) for n in range(5)]
    worker.stop()
    assert results == [0, 2, 4, 6, 8]
    assert [n for n, _ in seen] == [0, 1, 2, 3, 4]
    assert {name for _, name in seen} == {"test-db"}
    assert threading.current_thread().name != "test-db"


async def test_a_failure_is_raised_to_the_caller_and_the_thread_goes_on() -> None:
    worker = DatabaseThread("test-db")

    def fail() -> None:
        raise ValueError("disk says no")

    with pytest.raises(ValueError, match="disk says no"):
        await worker.run(fail)
    assert await worker.run(lambda: "still serving") == "still serving"
    worker.stop()


async def test_a_cancelled_caller_waits_for_its_call_to_end() -> None:
    worker = DatabaseThread("test-db")
    started, finished = threading.Event(), threading.Event()

    def slow_write() -> None:
        started.set()
        time.sleep(0.3)
        finished.set()

    async with anyio.create_task_group() as group:

        async def call() -> None:
            await worker.run(slow_write)

        group.start_soon(call)
        await anyio.to_thread.run_sync(started.wait)
        group.cancel_scope.cancel()
        # The task group's exit waits for `call`, which cannot leave before the write is done.
    assert finished.is_set()
    worker.stop()


async def test_stop_ends_the_thread_and_a_later_call_starts_a_new_one() -> None:
    worker = DatabaseThread("test-db-stop")
    await worker.run(lambda: None)
    first = next(t for t in threading.enumerate() if t.name == "test-db-stop")
    worker.stop()
    first.join(timeout=10)
    assert not first.is_alive()
    assert await worker.run(lambda: 42) == 42
    worker.stop()
