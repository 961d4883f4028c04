"""What handing one call to a thread costs: anyio's worker pool against the store's own thread.

    uv run python -m benchmarks.thread_hop            # --calls N

Each call does nothing, so the figure is the hand-over alone (CPU of the whole process per call). The SQLite
store makes ~150 such calls in a `strata run "say hello"` and several a step (`session/database_thread.py`).
Not part of `python -m benchmarks`: it compares two ways to reach a thread, not the product.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable

import anyio
import anyio.to_thread

from strata_core.session.database_thread import DatabaseThread


def _nothing() -> None:
    return None


async def _per_call(calls: int, hand_over: Callable[[], Awaitable[None]]) -> float:
    """CPU microseconds a call, over `calls` calls made one after another."""
    started = time.process_time()
    for _ in range(calls):
        await hand_over()
    return (time.process_time() - started) / calls * 1e6


async def measure(calls: int) -> dict[str, float]:
    own = DatabaseThread("thread-hop")
    try:
        await own.run(_nothing)  # both threads started before the clock runs
        await anyio.to_thread.run_sync(_nothing)
        return {
            "anyio.to_thread.run_sync": await _per_call(calls, lambda: anyio.to_thread.run_sync(_nothing)),
            "DatabaseThread.run": await _per_call(calls, lambda: own.run(_nothing)),
        }
    finally:
        own.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    for name, micros in anyio.run(measure, args.calls).items():
        print(f"{name}: {micros:.1f} us of CPU a call")


if __name__ == "__main__":
    main()
