"""How many stream events per second the wires decode, through the whole stack, from a loopback server.

For each wire (chat completions, Anthropic Messages) the ScriptedServer streams one long answer: text in
4-character chunks, or one tool call whose arguments arrive in 8-character fragments. Strata's model reads
it with its real HTTP client, httpx-sse, the wire decoder and the retry wrapper, exactly as a session
would. The server runs in a child process, so it does not share the interpreter lock with the client being
measured. The clock runs from the first event to the last (the server renders the answer before it sends
the first byte; that is the test kit's cost, not the wire's), and the figure is events / second, median of
runs. The server frames each SSE event as its own HTTP chunk, as providers do.

    uv run python -m benchmarks.stream_decode [--events 50000] [--runs 5]
    uv run python -m benchmarks --only stream_decode
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

import anyio
import httpx

from benchmarks.common import Result, at_least, median
from strata_core.http import make_client
from strata_core.llm import LanguageModel, ModelInfo, ModelRequest, TextContent, UserModelMessage
from strata_providers import AnthropicMessagesModel, Endpoint, OpenAIChatModel
from strata_providers.testing import ScriptedServer

TARGET_EVENTS_PER_SECOND = 50_000
Wire = Literal["chat", "messages"]
REQUEST = ModelRequest(system=("benchmark",), messages=(UserModelMessage((TextContent("go"),)),))


def text_turn(events: int) -> dict[str, Any]:
    return {"text": "abcd" * events, "chunk_size": 4}


def tool_turn(events: int) -> dict[str, Any]:
    # One argument string long enough for `events` 8-character fragments.
    return {"tool_calls": [{"name": "write", "arguments": {"content": "x" * (8 * events - 15)}}], "chunk_size": 8}


def model_for(wire: Wire, base_url: str, client: httpx.AsyncClient) -> LanguageModel:
    get_client: Callable[[], httpx.AsyncClient] = lambda: client  # noqa: E731
    if wire == "chat":
        return OpenAIChatModel(ModelInfo("bench", "bench"), Endpoint(base_url), get_client)
    info = ModelInfo("bench", "bench", npm="@ai-sdk/anthropic")
    return AnthropicMessagesModel(info, Endpoint(base_url), get_client)


@contextmanager
def server_process(turns: list[dict[str, Any]]) -> Iterator[str]:
    """A ScriptedServer in a child process; yields its base URL, stops it when the block ends."""
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.stream_decode", "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(json.dumps(turns) + "\n")
        child.stdin.flush()
        yield child.stdout.readline().strip()
    finally:
        child.stdin.close()  # the child serves until its stdin closes
        child.wait(timeout=30)


def serve() -> None:
    turns = json.loads(sys.stdin.readline())
    with ScriptedServer(turns) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


async def one_run(model: LanguageModel) -> tuple[int, float]:
    """Events received and seconds from the first to the last."""
    count = 0
    first = last = 0.0
    async with model.stream(REQUEST) as events:
        async for event in events:
            if count == 0:
                first = time.perf_counter()
            count += 1
            if event.type == "error":
                raise RuntimeError(f"the benchmark stream failed: {event!r}")
    last = time.perf_counter()
    return count, last - first


async def measure(wire: Wire, turn: dict[str, Any], runs: int, warmup: bool) -> tuple[float, int]:
    """Median events per second over `runs`, and the number of events per run."""
    turns = [turn] * (runs + int(warmup))
    with server_process(turns) as base_url:
        async with make_client() as client:
            model = model_for(wire, base_url, client)
            if warmup:
                await one_run(model)
            samples = [await one_run(model) for _ in range(runs)]
    return median([count / seconds for count, seconds in samples]), samples[0][0]


def run(quick: bool, runs: int | None = None, events: int | None = None) -> list[Result]:
    n_runs = runs or (2 if quick else 5)
    n_events = events or (10_000 if quick else 50_000)
    results = []
    for label, make_turn in (("text deltas", text_turn), ("tool-argument deltas", tool_turn)):
        for wire in ("chat", "messages"):
            rate, count = anyio.run(measure, wire, make_turn(n_events), n_runs, not quick)
            results.append(
                Result(
                    f"stream decode, {wire} wire, {count} events ({label})",
                    "events per second",
                    "events/s",
                    rate,
                    target=at_least(TARGET_EVENTS_PER_SECOND),
                    runs=n_runs,
                )
            )
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        sys.exit(0)
    for result in run(args.quick, args.runs, args.events):
        print(json.dumps(result.to_json()))
