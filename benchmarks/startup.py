"""Start-up and whole-run figures of the `strata` command, beside OpenCode 1.18.33's on the same fixture.

For each CLI, in a fresh copy of a small fixture (a git repository with an AGENTS.md and an opencode.json
pointing at the server), a fresh HOME and capture.sh's clean environment:

- `--version` and `--help`: the wall time of the process (nothing but start-up);
- `run "say hello"` against an in-process `ScriptedServer` answering at once:
  - time from process start to the first model request reaching the server (title requests do not count:
    both CLIs send theirs concurrently);
  - wall time of the whole run, its user+system CPU time, and peak RSS (`ru_maxrss` of the largest process
    in the CLI's tree), all from `wait4`.

Strata runs as `.venv/bin/strata`, the installed console script (not through `uv run`); OpenCode as its
installed binary. One untimed warm-up run of each comes first, then the CLIs alternate; figures are medians.

    uv run python -m benchmarks.startup            # --runs N, --quick, --no-opencode
    uv run python -m benchmarks --only startup
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import (
    MIB,
    REPO_ROOT,
    Result,
    at_most,
    clean_env,
    git_commit_all,
    median,
    mock_provider_config,
    opencode_binary,
    write_files,
)
from strata_providers.testing import ScriptedServer

STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
RUN_TIMEOUT = 120.0
POLL_SECONDS = 0.0005

FLAG_WALL_MS = 60
"""`--version` and `--help`: at most 60 ms of wall time (issue 30; 150 ms before it)."""
HELLO_WALL_MS = 150
"""`run "say hello"`: at most 150 ms of wall time on a quiet machine (issue 30)."""
HELLO_PEAK_RSS_MIB = 40
"""`run "say hello"`: peak RSS at most 40 MiB (issue 30)."""


@dataclass(frozen=True)
class Sample:
    wall: float
    first_request: float | None
    peak_rss_mib: float
    cpu: float
    """User + system CPU seconds of the CLI process: less sensitive to other load on the machine than wall."""


class RunFailed(RuntimeError):
    """A run that did not do what it should; its timing would be meaningless."""


def _fixture(work: Path, port: int) -> None:
    write_files(work, {"AGENTS.md": "# Rules\nAnswer briefly.\n", "opencode.json": mock_provider_config(port)})
    git_commit_all(work)


def _watch_first_request(server: ScriptedServer, start: float, done: threading.Event, seen: list[float]) -> None:
    """Polls the server's record: the first main request's arrival, in seconds after `start`."""
    while not done.is_set():
        if server.main_requests:
            seen.append(time.perf_counter() - start)
            return
        time.sleep(POLL_SECONDS)


def measure(argv: Sequence[str], *, with_server: bool) -> Sample:
    """One run of `argv` (`{port}` is not needed: the fixture's opencode.json names the server)."""
    base = Path(tempfile.mkdtemp(prefix="strata-startup."))
    try:
        work, home = base / "work", base / "home"
        work.mkdir()
        home.mkdir()
        with ScriptedServer([{"text": "Hello! How can I help you today?"}]) as server:
            _fixture(work, server.port)
            return _run_measured(list(argv), work, home, server if with_server else None)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run_measured(argv: list[str], work: Path, home: Path, server: ScriptedServer | None) -> Sample:
    done = threading.Event()
    seen: list[float] = []
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=work, env=clean_env(home), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    watcher = None
    if server is not None:
        watcher = threading.Thread(target=_watch_first_request, args=(server, start, done, seen), daemon=True)
        watcher.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    if watcher is not None:
        watcher.join()
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RunFailed(f"{argv[0]} exited {os.waitstatus_to_exitcode(status)}: {stderr[-1500:]}")
    if server is not None and not seen:
        raise RunFailed(f"{argv[0]} finished without calling the model: {stderr[-1500:]}")
    return Sample(wall, seen[0] if seen else None, usage.ru_maxrss * 1024 / MIB, usage.ru_utime + usage.ru_stime)


@dataclass(frozen=True)
class Case:
    name: str
    args: Sequence[str]
    with_server: bool


CASES = (
    Case("--version", ["--version"], False),
    Case("--help", ["--help"], False),
    Case('run "say hello"', ["run", "say hello"], True),
)


def _clis(no_opencode: bool) -> dict[str, Path]:
    clis: dict[str, Path] = {}
    if STRATA.is_file():
        clis["strata"] = STRATA
    binary = None if no_opencode or os.environ.get("STRATA_BENCH_NO_OPENCODE") else opencode_binary()
    if binary is not None:
        clis["opencode"] = binary
    return clis


def collect(runs: int, warmup: bool, no_opencode: bool = False) -> dict[tuple[str, str], list[Sample]]:
    """Samples per (case, cli): CLIs interleaved, each case after one untimed warm-up run of each CLI."""
    clis = _clis(no_opencode)
    samples: dict[tuple[str, str], list[Sample]] = {}
    for case in CASES:
        for round_ in range(runs + (1 if warmup else 0)):
            for name, binary in clis.items():
                sample = measure([str(binary), *case.args], with_server=case.with_server)
                if warmup and round_ == 0:
                    continue
                samples.setdefault((case.name, name), []).append(sample)
    return samples


def _median(samples: Sequence[Sample] | None, pick: Callable[[Sample], float | None]) -> float | None:
    values = [v for v in (pick(s) for s in samples or ()) if v is not None]
    return median(values) if values else None


def results(samples: dict[tuple[str, str], list[Sample]], runs: int) -> list[Result]:
    rows: list[Result] = []

    def row(case: str, metric: str, unit: str, pick: Callable[[Sample], float | None], target: float | None) -> None:
        strata, opencode = samples.get((case, "strata")), samples.get((case, "opencode"))
        rows.append(
            Result(
                f"start-up: {case}", metric, unit, _median(strata, pick), _median(opencode, pick),
                target=None if target is None else at_most(target), runs=runs, versus_opencode=True,
            )
        )  # fmt: skip

    for flag in ("--version", "--help"):
        row(flag, "wall", "ms", lambda s: s.wall * 1000, FLAG_WALL_MS)
        row(flag, "CPU (user+sys)", "ms", lambda s: s.cpu * 1000, None)
    hello = 'run "say hello"'
    row(hello, "to first model request", "ms", lambda s: s.first_request * 1000 if s.first_request else None, None)
    row(hello, "wall", "ms", lambda s: s.wall * 1000, HELLO_WALL_MS)
    row(hello, "CPU (user+sys)", "ms", lambda s: s.cpu * 1000, None)
    row(hello, "peak RSS", "MiB", lambda s: s.peak_rss_mib, HELLO_PEAK_RSS_MIB)
    return rows


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (2 if quick else 7)
    return results(collect(count, warmup=not quick), count)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="measured runs per CLI and case (default 7)")
    parser.add_argument("--quick", action="store_true", help="two runs, no warm-up")
    parser.add_argument("--no-opencode", action="store_true", help="measure Strata only")
    args = parser.parse_args(argv)
    count = args.runs or (2 if args.quick else 7)
    for result in results(collect(count, warmup=not args.quick, no_opencode=args.no_opencode), count):
        print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
