"""How many stream events per second the wires decode, through the whole stack, from a loopback server;
and how many a whole `strata run` decodes and prints.

Decoding: for each wire (chat completions, Anthropic Messages) the ScriptedServer streams one long answer:
text in 4-character chunks, or one tool call whose arguments arrive in 8-character fragments. Strata's model
reads it with its real HTTP client, the SSE decoder, the wire decoder and the retry wrapper, exactly as a
session would. The server runs in a child process, so it does not share the interpreter lock with the client
being measured. The clock runs from the first event to the last (the server renders the answer before it
sends the first byte; that is the test kit's cost, not the wire's): events / second, median of runs; beside
it the client's CPU time per event (`time.process_time`), which a shared machine's load moves far less.
The server frames each SSE event as its own HTTP chunk, as providers do.

End to end: the installed `strata run` in a fresh git project and home, against the same server in a child
process, streams a 1 MB answer in 250,000 deltas of 4 characters (50,000 with --quick) through the engine
(processor, part writer, bus, the SQLite store) to the CLI's renderer printing to a file; the answer printed
is checked whole. Figures: deltas / second from the first byte printed to the last (read from a pipe, so
start-up and the server's rendering of the answer are not in it), CPU time per delta of the whole process
(user + system from `wait4`, start-up's ~0.3 s included), and peak RSS.

    uv run python -m benchmarks.stream_decode [--events 50000] [--runs 5] [--quick]
    uv run python -m benchmarks --only stream_decode
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx
from attrs import frozen

from benchmarks import common
from benchmarks.common import REPO_ROOT, Result, at_least, clean_env, median
from strata_core.http import make_client
from strata_core.llm import LanguageModel, ModelInfo, ModelRequest, TextContent, UserModelMessage
from strata_providers import AnthropicMessagesModel, Endpoint, OpenAIChatModel
from strata_providers.testing import ScriptedServer

TARGET_EVENTS_PER_SECOND = 100_000
"""Issue 30: 100,000 deltas per second decoded and rendered end to end."""
STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
NPM: dict[str, str] = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}
Wire = Literal["chat", "messages"]
WIRES: tuple[Wire, ...] = ("chat", "messages")
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


async def one_run(model: LanguageModel) -> tuple[int, float, float]:
    """Events received, seconds from the first to the last, and the CPU seconds this process spent meanwhile."""
    count = 0
    first = last = cpu_first = 0.0
    async with model.stream(REQUEST) as events:
        async for event in events:
            if count == 0:
                first, cpu_first = time.perf_counter(), time.process_time()
            count += 1
            if event.type == "error":
                raise RuntimeError(f"the benchmark stream failed: {event!r}")
    last = time.perf_counter()
    return count, last - first, time.process_time() - cpu_first


async def measure(wire: Wire, turn: dict[str, Any], runs: int, warmup: bool) -> tuple[float, float, int]:
    """Median events per second and median CPU microseconds per event over `runs`, and the events of a run."""
    turns = [turn] * (runs + int(warmup))
    with server_process(turns) as base_url:
        async with make_client() as client:
            model = model_for(wire, base_url, client)
            if warmup:
                await one_run(model)
            samples = [await one_run(model) for _ in range(runs)]
    rate = median([count / seconds for count, seconds, _ in samples])
    cpu = median([cpu * 1e6 / count for count, _, cpu in samples])
    return rate, cpu, samples[0][0]


@frozen
class PrintedRun:
    """One `strata run`: when its output started and ended, and what the process spent (from `wait4`)."""

    printing_seconds: float
    """From the first byte printed to the last: the answer's deltas rendered, without start-up."""
    cpu_seconds: float
    peak_rss_mib: float


def end_to_end(wire: Wire, deltas: int, extra_env: dict[str, str] | None = None) -> PrintedRun:
    """One `strata run` printing an answer of `deltas` 4-character text deltas streamed over `wire`
    (`extra_env`: e.g. a `PYTHONPATH` putting another source tree first, to compare two)."""
    with server_process([text_turn(deltas)]) as base_url, common.fresh_project("strata-bench-e2e.") as paths:
        project, home = paths
        provider = {"npm": NPM[wire], "options": {"baseURL": base_url, "apiKey": "x"}, "models": {"bench": {}}}
        config = {"provider": {"bench": provider}, "model": "bench/bench"}
        (project / "opencode.json").write_text(json.dumps(config))
        return _printed_run([str(STRATA), "run", "go"], project, clean_env(home, extra_env), 4 * deltas)


def _printed_run(argv: list[str], cwd: Path, env: dict[str, str], answer_chars: int) -> PrintedRun:
    """Runs `argv` with its output on a pipe read here, timing the first and the last byte of it."""
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errors
        )
        assert child.stdout is not None
        first = last = 0.0
        size = 0
        tail = b""
        while piece := os.read(child.stdout.fileno(), 1 << 16):
            last = time.perf_counter()
            first = first or last
            size, tail = size + len(piece), piece
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        child.stdout.close()
        errors.seek(0)
        if child.returncode != 0:
            raise RuntimeError(f"{argv} exited {child.returncode}: {errors.read()[-500:]!r}")
    answer_size = size - (len(tail) - len(tail.rstrip(b"\n")))
    if answer_size != answer_chars:
        raise RuntimeError(f"{argv} printed {answer_size} characters, not the {answer_chars} of the answer")
    return PrintedRun(last - first, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def run(quick: bool, runs: int | None = None, events: int | None = None) -> list[Result]:
    n_runs = runs or (2 if quick else 5)
    n_events = events or (10_000 if quick else 50_000)
    results = []
    for label, make_turn in (("text deltas", text_turn), ("tool-argument deltas", tool_turn)):
        for wire in WIRES:
            rate, cpu, count = anyio.run(measure, wire, make_turn(n_events), n_runs, not quick)
            scenario = f"stream decode, {wire} wire, {count} events ({label})"
            target = at_least(TARGET_EVENTS_PER_SECOND)
            results.append(Result(scenario, "events per second", "events/s", rate, target=target, runs=n_runs))
            results.append(Result(scenario, "CPU per event", "us", cpu, runs=n_runs))
    deltas = 50_000 if quick else 250_000
    e2e_runs = runs or (1 if quick else 3)
    for wire in WIRES:
        samples = [end_to_end(wire, deltas) for _ in range(e2e_runs)]
        scenario = f"strata run end to end, {wire} wire, {deltas:,} text deltas"
        rate = median([deltas / sample.printing_seconds for sample in samples])
        cpu = median([sample.cpu_seconds * 1e6 / deltas for sample in samples])
        rss = median([sample.peak_rss_mib for sample in samples])
        target = at_least(TARGET_EVENTS_PER_SECOND)
        results.append(Result(scenario, "deltas per second", "deltas/s", rate, target=target, runs=e2e_runs))
        results.append(Result(scenario, "CPU per delta", "us", cpu, runs=e2e_runs))
        results.append(Result(scenario, "peak RSS", "MiB", rss, runs=e2e_runs))
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
