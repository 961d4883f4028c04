"""Several `strata serve` hosts on one PostgreSQL store, against one server on SQLite: turns per second, prompt
latency, and how late a turn's events reach the clients of the other hosts.

A throwaway PostgreSQL cluster is started for the run (the tests' launcher, `tests/helpers/postgres_server.py`:
Debian's server binaries, run as the `postgres` user when this runs as root). Each host is a `strata serve`
process (the installed console script) with a HOME of its own, in its own clone of one git repository, so all
are one project. One scripted model server (the oracle's `scripted_server.py` in its own process, else Strata's
`ScriptedServer` in a thread of this one) answers every turn with one text streamed in 8-character deltas.

One run of a configuration (`hosts` servers, `sessions` per server):

1. start the servers and wait for `/global/health`; connect one `/event` reader to each (as a TUI does);
2. create every session on the server that will prompt it;
3. prompt all of them at once (`POST /session/{id}/message`, answered when the turn is done), each on its own
   server: the wall time from the first prompt to the last answer gives turns per second, each request's time
   its latency;
4. every reader notes when each session's `session.idle` reaches it; the event delay across hosts is, for each
   session and each other host, the time it reached that host's reader minus the time it reached its own
   host's reader.

Run alone: `uv run python -m benchmarks.multi_host [--hosts 3] [--sessions 50] [--quick]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx

from benchmarks.common import (
    REPO_ROOT,
    Result,
    clean_env,
    free_port,
    git_commit_all,
    mock_provider_config,
    model_server,
    wait_healthy,
)

STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
CLOSING = " ".join(f"word{i:02d}" for i in range(24))
START_TIMEOUT = 60.0
TURNS_TIMEOUT = 600.0


@dataclass
class Outcome:
    label: str
    hosts: int
    turns: int
    answered: int
    wall: float
    latencies: list[float]
    cross_host_delays: list[float] = field(default_factory=list)
    idle_seen: dict[tuple[int, str], float] = field(default_factory=dict)

    @property
    def turns_per_second(self) -> float:
        return self.answered / self.wall if self.wall else 0.0


@contextmanager
def postgres_database() -> Iterator[str]:
    """A throwaway cluster's URL, with the tests' launcher (one way to start PostgreSQL as a non-root user)."""
    sys.path.insert(0, str(REPO_ROOT / "tests" / "helpers"))
    from postgres_server import remove, start_postgres

    server = start_postgres()
    try:
        yield server.fresh_database()
    finally:
        remove(server)


def _clones(root: Path, count: int) -> list[Path]:
    origin = root / "origin"
    origin.mkdir()
    (origin / "README.md").write_text("one project on several hosts\n")
    git_commit_all(origin)
    clones = []
    for n in range(count):
        clone = root / f"host-{n}" / "work"
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
        clones.append(clone)
    return clones


@contextmanager
def _servers(clones: list[Path], model_port: int, database_url: str | None) -> Iterator[list[str]]:
    with ExitStack() as stack:
        urls: list[str] = []
        started: list[subprocess.Popen[bytes]] = []
        for clone in clones:
            (clone / "opencode.json").write_text(mock_provider_config(model_port))
            home = clone.parent / "home"
            home.mkdir()
            port = free_port()
            env = clean_env(home, {"STRATA_DATABASE_URL": database_url} if database_url else None)
            process = subprocess.Popen(
                [str(STRATA), "serve", "--port", str(port)],
                cwd=clone,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            stack.callback(_stop, process)
            urls.append(f"http://127.0.0.1:{port}")
            started.append(process)
        for url, process in zip(urls, started, strict=True):
            wait_healthy(url, process, START_TIMEOUT)
        yield urls


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def _load(label: str, urls: list[str], sessions_per_host: int) -> Outcome:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    idle_seen: dict[tuple[int, str], float] = {}
    latencies: list[float] = []
    answered = 0
    async with httpx.AsyncClient(timeout=TURNS_TIMEOUT, limits=limits) as client:
        readers_ready = [anyio.Event() for _ in urls]

        async def read_events(host: int) -> None:
            async with client.stream("GET", f"{urls[host]}/event") as stream:
                readers_ready[host].set()
                async for line in stream.aiter_lines():
                    if line.startswith("data:") and '"session.idle"' in line:
                        event = json.loads(line.removeprefix("data:"))
                        idle_seen.setdefault((host, event["properties"]["sessionID"]), time.perf_counter())

        async def create(host: int) -> tuple[int, str]:
            response = await client.post(f"{urls[host]}/session", json={})
            return host, str(response.json()["id"])

        async def prompt(host: int, session_id: str) -> None:
            nonlocal answered
            started = time.perf_counter()
            response = await client.post(
                f"{urls[host]}/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]}
            )
            latencies.append(time.perf_counter() - started)
            texts = [p.get("text", "") for p in response.json().get("parts", [])] if response.status_code == 200 else []
            answered += CLOSING in texts

        async with anyio.create_task_group() as readers:
            for host in range(len(urls)):
                readers.start_soon(read_events, host)
            for ready in readers_ready:
                await ready.wait()
            made: list[tuple[int, str]] = []
            for host in range(len(urls)):
                made += [await create(host) for _ in range(sessions_per_host)]
            started = time.perf_counter()
            with anyio.fail_after(TURNS_TIMEOUT):
                async with anyio.create_task_group() as prompts:
                    for host, session_id in made:
                        prompts.start_soon(prompt, host, session_id)
            wall = time.perf_counter() - started
            with anyio.move_on_after(10):  # the other hosts' idle events may still be on their way
                while len(idle_seen) < len(made) * len(urls):  # noqa: ASYNC110 - the readers fill it
                    await anyio.sleep(0.05)
            readers.cancel_scope.cancel()
    outcome = Outcome(label, len(urls), len(made), answered, wall, latencies, idle_seen=idle_seen)
    for host, session_id in made:
        own = idle_seen.get((host, session_id))
        for other in range(len(urls)):
            seen = idle_seen.get((other, session_id))
            if other != host and own is not None and seen is not None:
                outcome.cross_host_delays.append(seen - own)
    return outcome


def measure(hosts: int, sessions_per_host: int, database_url: str | None) -> Outcome:
    store = "PostgreSQL" if database_url else "SQLite"
    label = f"{hosts} server{'s' if hosts > 1 else ''} x {sessions_per_host} sessions, {store}"
    with tempfile.TemporaryDirectory(prefix="strata-multi-host-") as root:
        clones = _clones(Path(root), hosts)
        script = [{"text": CLOSING, "chunk_size": 8}] * (hosts * sessions_per_host)
        with model_server(script, Path(root) / "model") as model, _servers(clones, model.port, database_url) as urls:
            return anyio.run(_load, label, urls, sessions_per_host)


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def results(outcome: Outcome) -> list[Result]:
    rows = [
        Result(outcome.label, "turns per second", "turns/s", outcome.turns_per_second),
        Result(outcome.label, "turns answered", "turns", float(outcome.answered), note=f"of {outcome.turns}"),
        Result(outcome.label, "prompt latency p50", "s", statistics.median(outcome.latencies)),
        Result(outcome.label, "prompt latency p99", "s", _percentile(outcome.latencies, 0.99)),
    ]
    if outcome.hosts > 1:
        expected = outcome.turns * (outcome.hosts - 1)
        seen = float(len(outcome.cross_host_delays))
        rows.append(Result(outcome.label, "idle events seen across hosts", "events", seen, note=f"of {expected}"))
    if outcome.cross_host_delays:
        delays = outcome.cross_host_delays
        rows += [
            Result(outcome.label, "event delay across hosts p50", "ms", 1000 * statistics.median(delays)),
            Result(outcome.label, "event delay across hosts p99", "ms", 1000 * _percentile(delays, 0.99)),
        ]
    return rows


def run(quick: bool, runs: int | None = None, hosts: int = 3, sessions: int = 50) -> list[Result]:
    """One server on SQLite with `sessions` sessions, then `hosts` servers on PostgreSQL with `sessions` each."""
    if quick:
        sessions = min(sessions, 10)
    rows = results(measure(1, sessions, None))
    try:
        with postgres_database() as url:
            rows += results(measure(1, sessions, url))
            rows += results(measure(hosts, sessions, url))
    except RuntimeError as error:  # PostgresUnavailable: no server binaries here
        rows.append(Result(f"{hosts} servers on PostgreSQL", "turns per second", "turns/s", None, note=str(error)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=50, help="sessions per host")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for row in run(args.quick, hosts=args.hosts, sessions=args.sessions):
        print(f"{row.scenario} | {row.metric} | {row.strata:.3f} {row.unit} {row.note}".rstrip())


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
