"""How long `strata run` lasts against a model server that never answers, and how fast Ctrl-C ends it.

- silent server, default settings: the server sends its headers and then nothing; Strata's defaults (60 s
  chunk timeout, 3 retries, a 100 s retry budget) must end the run in under 2 minutes (it took 1,214 s
  before the deadlines existed). Skipped with `--quick`: it takes about 100 s by design.
- SIGINT while waiting for the model, and while waiting for a tool (`sleep 60` in bash): seconds from the
  signal to the process's exit (exit status 130 checked), target under 1 s.

    uv run python -m benchmarks --only hostile_model
"""

from __future__ import annotations

import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.common import REPO_ROOT, Result, at_most, clean_env, model_server

STRATA = REPO_ROOT / ".venv" / "bin" / "strata"
EXIT_INTERRUPTED = 130


class _Silent(BaseHTTPRequestHandler):
    release = threading.Event()
    requests = 0

    def do_POST(self) -> None:
        _Silent.requests += 1
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.flush()
        _Silent.release.wait(300)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def silent_server() -> Iterator[int]:
    _Silent.release.clear()
    _Silent.requests = 0
    with common.loopback_server(_Silent) as port:
        try:
            yield port
        finally:
            _Silent.release.set()  # the handlers still waiting end before the server stops


@contextmanager
def project(port: int) -> Iterator[tuple[Path, dict[str, str]]]:
    with common.fresh_project("strata-bench-hostile.") as (work, home):
        (work / "opencode.json").write_text(common.mock_provider_config(port))
        yield work, clean_env(home)


def time_to_fail() -> float:
    with silent_server() as port, project(port) as (work, env):
        start = time.perf_counter()
        done = subprocess.run([str(STRATA), "run", "say hello"], cwd=work, env=env, capture_output=True, timeout=600)
        elapsed = time.perf_counter() - start
    if done.returncode == 0:
        raise RuntimeError("strata run succeeded against a silent server")
    return elapsed


def interrupt_latency(work: Path, env: dict[str, str], argv: list[str], ready: Path | None, wait: float) -> float:
    process = subprocess.Popen(
        [str(STRATA), *argv], cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while ready is not None and not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(wait)
        start = time.perf_counter()
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
        elapsed = time.perf_counter() - start
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if code != EXIT_INTERRUPTED:
        raise RuntimeError(f"strata exited {code} after SIGINT, not {EXIT_INTERRUPTED}")
    return elapsed


def model_wait_latency() -> float:
    with silent_server() as port, project(port) as (work, env):
        return interrupt_latency(work, env, ["run", "say hello"], None, 3.0)


def tool_wait_latency() -> float:
    with tempfile.TemporaryDirectory(prefix="strata-bench-tool.") as root:
        # The marker is made inside the project: the shell sandbox lets a command write nothing else.
        bash = {"name": "bash", "arguments": {"command": "touch started && sleep 60", "description": "wait"}}
        with model_server([{"tool_calls": [bash]}], Path(root) / "server") as server, project(server.port) as (w, e):
            return interrupt_latency(w, e, ["run", "--auto", "wait"], w / "started", 0.3)


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    results = [
        Result(
            "SIGINT while waiting for the model",
            "signal to exit",
            "s",
            statistics.median(model_wait_latency() for _ in range(count)),
            target=at_most(1.0),
            runs=count,
        ),
        Result(
            "SIGINT while waiting for a tool",
            "signal to exit",
            "s",
            statistics.median(tool_wait_latency() for _ in range(count)),
            target=at_most(1.0),
            runs=count,
        ),
    ]
    if not quick:
        results.append(
            Result("silent model server, default settings", "time to fail", "s", time_to_fail(), target=at_most(120))
        )
    return results
