"""`strata serve` and `opencode serve` under load: 200 sessions each running a 5-step tool turn at once.

Each server runs as its own process (the installed `strata` console script; OpenCode 1.18.33's binary) in a
fresh copy of the side-by-side fixture (`opencode_side_by_side.build_project`: a git repository with one
commit), a fresh HOME and capture.sh's clean environment, in front of one oracle `scripted_server.py` in
another process (so neither the model's CPU nor the load generator's counts as the server's). The script
plays, in arrival order: a warm-up turn (one `read`, then a text), then four rounds of one tool call per
session (`read`, `glob`, `read`, `glob` on files of the fixture), then one closing text per session streamed in
8-character deltas: 1,000 model calls for the 200 sessions, titles besides. The script is consumed in the order
requests arrive, so a session that runs ahead may take a fifth tool step and another only three; the checks
count every session's steps and report the spread.

One run, per server:

1. start the server, wait for `/global/health`; start the prober (`health_probe.py`, its own process:
   `GET /global/health` every 25 ms on one connection) and a sampler of the server's resident memory (its
   whole process tree, every 50 ms) in a thread of this process; connect one `/event` reader (as a TUI does);
2. warm-up: one session runs one turn (loads what the first turn loads), then a 1 s pause: the baseline RSS;
3. create the sessions (`POST /session`, all at once); after a 1 s pause, the RSS of that many empty sessions;
4. prompt them all at once (`POST /session/{id}/message`, which answers when the turn is done, as the SDK's
   `session.prompt` does), until every answer is in: the wall time and the completion count;
5. a 2 s pause, then the RSS of as many idle sessions that hold a finished turn each;
6. check every session over the API: its last message is the assistant's closing text, and count its tool
   parts (completed) and steps.

The health figures are those of the probes sent from step 3 to the end of step 4. RSS per idle session is
(RSS after step 5 - baseline) / sessions, and the same for step 3's empty sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx

from benchmarks.common import (
    MIB,
    REPO_ROOT,
    Result,
    at_most,
    clean_env,
    free_port,
    model_server,
    opencode_binary,
    oracle_available,
    wait_healthy,
)
from benchmarks.opencode_side_by_side import build_project

SESSIONS = 200
TOOL_ROUNDS = 4
"""Tool steps per session; with the closing text, a turn of `TOOL_ROUNDS + 1` model calls (steps)."""
CLOSING = " ".join(f"word{i:02d}" for i in range(24))
HEALTH_TARGET_MS = 50.0
STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
START_TIMEOUT = 60.0
TURNS_TIMEOUT = 900.0
SAMPLE_SECONDS = 0.05
BASELINE_PAUSE, EMPTY_PAUSE, IDLE_PAUSE = 1.0, 1.0, 2.0


# ---------------------------------------------------------------------------------------------------------
# The script and the servers


def _tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def round_step(work: Path, number: int) -> dict[str, Any]:
    """Round `number`'s tool call: a cheap one, `read` and `glob` in turn."""
    if number % 2 == 0:
        return _tool("read", filePath=f"{work}/src/util.py")
    return _tool("glob", pattern="src/*.py", path=str(work))


def load_script(work: Path, sessions: int) -> list[dict[str, Any]]:
    """The warm-up turn, `TOOL_ROUNDS` rounds of one tool call per session, then one closing text per session."""
    warm_up = [round_step(work, 0), {"text": "Warm."}]
    rounds = [round_step(work, number) for number in range(TOOL_ROUNDS) for _ in range(sessions)]
    closing = [{"text": CLOSING, "chunk_size": 8}] * sessions
    return [*warm_up, *rounds, *closing]


@dataclass(frozen=True)
class ServerKind:
    name: str
    argv: Callable[[int], list[str]]


def strata_kind() -> ServerKind:
    return ServerKind("strata", lambda port: [str(STRATA), "serve", "--port", str(port)])


def opencode_kind() -> ServerKind | None:
    if os.environ.get("STRATA_BENCH_NO_OPENCODE") or not oracle_available():
        return None
    binary = opencode_binary()
    if binary is None:
        return None
    return ServerKind("opencode", lambda port: [str(binary), "serve", "--port", str(port)])


@contextmanager
def running(kind: ServerKind, work: Path, home: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """The server on a free port in `work`, until the block exits (its whole process group is stopped)."""
    port = free_port()
    log = (work.parent / f"{kind.name}.log").open("wb")
    process = subprocess.Popen(
        kind.argv(port),
        cwd=work,
        env=clean_env(home),
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process, START_TIMEOUT)
        yield process, url
    finally:
        _stop_group(process)
        log.close()


def _stop_group(process: subprocess.Popen[Any]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(10)
            return
        except subprocess.TimeoutExpired:
            continue


# ---------------------------------------------------------------------------------------------------------
# Memory of a process tree


def tree_rss_mib(pid: int) -> float:
    """Resident memory of `pid` and every descendant, in MiB (0 once it is gone)."""
    total_kib = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
        total_kib += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total_kib * 1024 / MIB


class RssSampler:
    """The peak of `tree_rss_mib(pid)`, sampled every `SAMPLE_SECONDS` in a thread until `stop()`."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0.0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)
        self._thread.start()

    def now(self) -> float:
        return tree_rss_mib(self.pid)

    def _sample(self) -> None:
        while not self._stopped.wait(SAMPLE_SECONDS):
            self.peak = max(self.peak, self.now())

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()


@contextmanager
def health_prober(url: str) -> Iterator[list[tuple[float, float]]]:
    """`health_probe.py` against `url` in its own process; the list is filled with its samples at exit."""
    samples: list[tuple[float, float]] = []
    argv = [sys.executable, "-m", "benchmarks.health_probe", url]
    process = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        yield samples
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=30)
        samples += [(float(left), float(ms)) for left, ms in json.loads(out or b"[]")]


# ---------------------------------------------------------------------------------------------------------
# One run


@dataclass
class LoadRun:
    """What one run of one server measured."""

    server: str
    sessions: int
    completed: int = 0
    wall: float = 0.0
    health_ms: list[float] = field(default_factory=list)
    baseline_mib: float = 0.0
    empty_mib: float = 0.0
    idle_mib: float = 0.0
    peak_mib: float = 0.0
    steps: list[int] = field(default_factory=list)
    """Model calls (assistant messages) of each session's turn."""
    tool_calls: int = 0
    model_calls: int = 0
    other_answers: list[dict[str, Any]] = field(default_factory=list)
    """The answers that were not the script's closing text (their info and parts as served), to say why."""

    def per_session_kib(self, mib: float) -> float:
        return (mib - self.baseline_mib) * 1024 / self.sessions


async def _prompt(client: httpx.AsyncClient, session_id: str, text: str) -> dict[str, Any]:
    reply = await client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})
    reply.raise_for_status()
    answer: dict[str, Any] = reply.json()
    return answer


def _answer_text(answer: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in answer.get("parts", []) if part.get("type") == "text")


async def _new_session(client: httpx.AsyncClient) -> str:
    reply = await client.post("/session", json={})
    reply.raise_for_status()
    return str(reply.json()["id"])


async def _read_events(client: httpx.AsyncClient, counted: list[int]) -> None:
    """One `/event` reader for the whole run, as a TUI keeps one open; counts what it reads. A question asked
    ends the run at once: nobody answers one here, so its session would never finish."""
    async with client.stream("GET", "/event") as events:
        async for line in events.aiter_lines():
            if line.startswith("data:"):
                counted[0] += 1
                event = json.loads(line.removeprefix("data:"))
                if event.get("type") == "permission.asked":
                    raise RuntimeError(f"a session asked a question nobody answers in a load run: {event}")


async def _load(url: str, run: LoadRun, memory: RssSampler) -> tuple[float, float]:
    """Steps 2-6 of the module docstring: when the load window (steps 3 and 4) began and ended (epoch seconds)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(base_url=url, timeout=TURNS_TIMEOUT, limits=limits) as client:
        events = [0]
        async with anyio.create_task_group() as background:
            background.start_soon(_read_events, client, events)
            warm = await _prompt(client, await _new_session(client), "warm up")
            if _answer_text(warm) != "Warm.":
                raise RuntimeError(f"the warm-up turn answered {_answer_text(warm)!r}")
            await anyio.sleep(BASELINE_PAUSE)
            run.baseline_mib = memory.now()
            began = time.time()
            ids: list[str] = []

            async def create() -> None:
                ids.append(await _new_session(client))

            async with anyio.create_task_group() as group:
                for _ in range(run.sessions):
                    group.start_soon(create)
            await anyio.sleep(EMPTY_PAUSE)
            run.empty_mib = memory.now()
            answers: list[dict[str, Any]] = []

            async def prompt(session_id: str) -> None:
                answers.append(await _prompt(client, session_id, "work through the project"))

            started = time.perf_counter()
            with anyio.fail_after(TURNS_TIMEOUT):
                async with anyio.create_task_group() as group:
                    for session_id in ids:
                        group.start_soon(prompt, session_id)
            run.wall = time.perf_counter() - started
            ended = time.time()
            run.completed = sum(_answer_text(answer) == CLOSING for answer in answers)
            run.other_answers = [answer for answer in answers if _answer_text(answer) != CLOSING]
            await anyio.sleep(IDLE_PAUSE)
            run.idle_mib = memory.now()
            background.cancel_scope.cancel()
        await _count_steps(client, ids, run)
    return began, ended


async def _count_steps(client: httpx.AsyncClient, ids: Sequence[str], run: LoadRun) -> None:
    for session_id in ids:
        reply = await client.get(f"/session/{session_id}/message")
        reply.raise_for_status()
        messages = reply.json()
        assistants = [m for m in messages if m["info"]["role"] == "assistant"]
        run.steps.append(len(assistants))
        run.tool_calls += sum(
            1
            for m in assistants
            for part in m["parts"]
            if part["type"] == "tool" and part["state"]["status"] == "completed"
        )


def measure_once(kind: ServerKind, sessions: int = SESSIONS) -> LoadRun:
    """One run of `kind` under `sessions` sessions, in a fresh fixture, home and model server."""
    run = LoadRun(kind.name, sessions)
    with tempfile.TemporaryDirectory(prefix=f"strata-serve-load-{kind.name}.") as tmp:
        base = Path(tmp)
        work, home = base / "work", base / "home"
        work.mkdir()
        home.mkdir()
        with model_server(load_script(work, sessions), base / "requests") as model:
            # The script is played in arrival order, so a session running ahead can be given the same call three
            # times in a row: the doom-loop guard would then ask, and nobody answers in a load run.
            build_project(work, model.port, extra={"permission": {"doom_loop": "allow"}})
            with running(kind, work, home) as (process, url):
                memory = RssSampler(process.pid)
                try:
                    with health_prober(url) as probes:
                        began, ended = anyio.run(_load, url, run, memory)
                    run.health_ms = [ms for left, ms in probes if began <= left <= ended]
                finally:
                    memory.stop()
                run.peak_mib = memory.peak
            run.model_calls = model.main_requests()
    return run


# ---------------------------------------------------------------------------------------------------------
# Rows


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def results(strata: Sequence[LoadRun], opencode: Sequence[LoadRun], sessions: int) -> list[Result]:
    scenario = f"serve, {sessions} sessions x {TOOL_ROUNDS + 1}-step tool turn at once"
    side = bool(opencode) or opencode_kind() is None

    def row(metric: str, unit: str, figure: Callable[[LoadRun], float], **extra: Any) -> Result:
        value = _median([figure(r) for r in strata]) if strata else None
        other = _median([figure(r) for r in opencode]) if opencode else None
        return Result(scenario, metric, unit, value, other, runs=len(strata), versus_opencode=side, **extra)

    health = [ms for r in strata for ms in r.health_ms]
    other_health = [ms for r in opencode for ms in r.health_ms]
    note = f"Strata: {len(health)} probes; steps per session {_spread(strata)}; tool calls completed " + ", ".join(
        str(r.tool_calls) for r in strata
    )
    if opencode:
        note += f". OpenCode: {len(other_health)} probes; steps per session {_spread(opencode)}"
    return [
        row("sessions completed", "", lambda r: r.completed, target=None, note=note),
        row("wall until every answer", "s", lambda r: r.wall),
        row("GET /global/health p50", "ms", lambda r: _percentile(r.health_ms, 0.5)),
        row("GET /global/health p99", "ms", lambda r: _percentile(r.health_ms, 0.99), target=at_most(HEALTH_TARGET_MS)),
        row("GET /global/health max", "ms", lambda r: max(r.health_ms, default=0.0)),
        row("peak RSS (process tree)", "MiB", lambda r: r.peak_mib),
        row("RSS baseline (after one warm-up turn)", "MiB", lambda r: r.baseline_mib),
        row("RSS per empty session", "KiB", lambda r: r.per_session_kib(r.empty_mib)),
        row("RSS per idle session (turn done)", "KiB", lambda r: r.per_session_kib(r.idle_mib)),
    ]


def _spread(runs: Sequence[LoadRun]) -> str:
    steps = [count for r in runs for count in r.steps]
    if not steps:
        return "none"
    return f"{min(steps)}-{max(steps)} (median {statistics.median(steps):g})"


def measure(runs: int, sessions: int = SESSIONS, *, with_opencode: bool = True) -> tuple[list[LoadRun], list[LoadRun]]:
    """`runs` runs of each server, alternating (Strata first): (Strata's, OpenCode's)."""
    other = opencode_kind() if with_opencode else None
    strata_runs: list[LoadRun] = []
    opencode_runs: list[LoadRun] = []
    for _ in range(runs):
        strata_runs.append(measure_once(strata_kind(), sessions))
        if other is not None:
            opencode_runs.append(measure_once(other, sessions))
    return strata_runs, opencode_runs


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or 1
    strata_runs, opencode_runs = measure(count, with_opencode=not quick)
    return results(strata_runs, opencode_runs, SESSIONS)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.server_load", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--no-opencode", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="also write every run's raw figures here")
    args = parser.parse_args(argv)
    strata_runs, opencode_runs = measure(args.runs, args.sessions, with_opencode=not args.no_opencode)
    for result in results(strata_runs, opencode_runs, args.sessions):
        print(json.dumps(result.to_json()))
    if args.json is not None:
        raw = [{**r.__dict__, "health_ms": sorted(r.health_ms)} for r in [*strata_runs, *opencode_runs]]
        args.json.write_text(json.dumps(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
