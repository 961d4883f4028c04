"""What every benchmark shares: the `Result` row, targets, timing, child-process measurement, servers, fixtures.

A benchmark module exposes `run(quick: bool) -> list[Result]` (optionally with a `runs: int | None` keyword);
`python -m benchmarks` calls each one and prints one markdown table. Figures are medians of several runs.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, urlparse

import anyio

REPO_ROOT = Path(__file__).resolve().parent.parent
ORACLE_DIR = Path(os.environ.get("STRATA_ORACLE_DIR") or REPO_ROOT.parent / "shared" / "oracle")
ORACLE_CACHE = Path(os.environ.get("STRATA_ORACLE_CACHE") or Path.home() / ".cache" / "strata-oracle")
OPENCODE_VERSION = "1.18.33"
MIB = 1024 * 1024

# ---------------------------------------------------------------------------------------------------------
# Results and targets


@dataclass(frozen=True)
class Target:
    """What a figure must reach: `max` (Strata at most), `min` (at least) or `ratio` (OpenCode / Strata at least)."""

    kind: Literal["max", "min", "ratio"]
    value: float

    def describe(self, unit: str) -> str:
        if self.kind == "ratio":
            return f">= {self.value:g}x less than OpenCode"
        return f"{'<=' if self.kind == 'max' else '>='} {self.value:g} {unit}"


def at_most(value: float) -> Target:
    return Target("max", value)


def at_least(value: float) -> Target:
    return Target("min", value)


def ratio_at_least(value: float) -> Target:
    return Target("ratio", value)


@dataclass(frozen=True)
class Result:
    """One row of the summary table: a scenario's metric for Strata, and for OpenCode when measured."""

    scenario: str
    metric: str
    unit: str
    strata: float | None
    opencode: float | None = None
    target: Target | None = None
    runs: int = 1
    note: str = ""
    versus_opencode: bool = False
    """A side-by-side row: its OpenCode column says `absent` when OpenCode was not run."""

    @property
    def ratio(self) -> float | None:
        """OpenCode / Strata: how many times less Strata spends (lower-is-better metrics)."""
        if self.strata is None or self.opencode is None or self.strata <= 0:
            return None
        return self.opencode / self.strata

    def verdict(self) -> str:
        """`met`, `missed by ...`, or why it cannot be judged."""
        target = self.target
        if target is None:
            return ""
        if self.strata is None:
            return "not measured"
        if target.kind == "ratio":
            ratio = self.ratio
            if ratio is None:
                return "OpenCode absent"
            if ratio >= target.value:
                return "met"
            return f"missed: {ratio:.1f}x of {target.value:g}x"
        if target.kind == "max":
            if self.strata <= target.value:
                return "met"
            return f"missed by {self.strata - target.value:.3g} {self.unit} ({self.strata / target.value:.2f}x)"
        if self.strata >= target.value:
            return "met"
        return f"missed by {target.value - self.strata:.3g} {self.unit} ({self.strata / target.value:.2f}x)"

    def to_json(self) -> dict[str, Any]:
        target = None if self.target is None else {"kind": self.target.kind, "value": self.target.value}
        return {
            "scenario": self.scenario,
            "metric": self.metric,
            "unit": self.unit,
            "strata": self.strata,
            "opencode": self.opencode,
            "ratio": self.ratio,
            "target": target,
            "verdict": self.verdict(),
            "runs": self.runs,
            "note": self.note,
            "versus_opencode": self.versus_opencode,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        """A row from another module's JSON output (the same keys as `to_json`; extra keys ignored)."""
        raw_target = data.get("target")
        target = Target(raw_target["kind"], float(raw_target["value"])) if isinstance(raw_target, dict) else None
        return cls(
            scenario=str(data["scenario"]),
            metric=str(data.get("metric", "")),
            unit=str(data.get("unit", "")),
            strata=_float_or_none(data.get("strata")),
            opencode=_float_or_none(data.get("opencode")),
            target=target,
            runs=int(data.get("runs", 1)),
            note=str(data.get("note", "")),
            versus_opencode=bool(data.get("versus_opencode", data.get("opencode") is not None)),
        )


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "absent"
    if abs(value) >= 1000:
        return f"{value:,.0f} {unit}"
    if abs(value) >= 100:
        return f"{value:.0f} {unit}"
    if abs(value) >= 10:
        return f"{value:.1f} {unit}"
    return f"{value:.3g} {unit}"


def markdown_table(results: Sequence[Result]) -> str:
    """The summary table: one row per result, medians, ratio OpenCode/Strata, target and verdict."""
    lines = [
        "| scenario | metric | Strata | OpenCode | ratio | target | verdict |",
        "| --- | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for r in results:
        ratio = r.ratio
        lines.append(
            "| "
            + " | ".join(
                [
                    r.scenario,
                    r.metric,
                    format_value(r.strata, r.unit),
                    format_value(r.opencode, r.unit) if r.opencode is not None or r.versus_opencode else "",
                    "" if ratio is None else f"{ratio:.1f}x",
                    "" if r.target is None else r.target.describe(r.unit),
                    r.verdict(),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------
# Timing in one process


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def time_runs(fn: Callable[[], object], runs: int) -> list[float]:
    """Wall seconds of `runs` calls of `fn`."""
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


async def atime_runs(fn: Callable[[], Awaitable[object]], runs: int) -> list[float]:
    """Wall seconds of `runs` awaited calls of `fn`."""
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - start)
    return times


# ---------------------------------------------------------------------------------------------------------
# Whole processes


@dataclass(frozen=True)
class ProcessSample:
    """One finished child process: wall and CPU seconds, and the peak RSS of its largest process."""

    wall: float
    cpu: float
    """User + system seconds of the child and every descendant it waited for."""
    peak_rss_mib: float
    """`ru_maxrss` from wait4: the largest resident set of the child or any descendant it waited for."""
    returncode: int
    stdout: str
    stderr: str


def measure_process(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float = 120.0) -> ProcessSample:
    """Run `argv` to the end and measure it with `wait4`, which reports this one child's own resource use."""
    with tempfile.TemporaryDirectory(prefix="strata-bench-io.") as io_dir:
        out_path, err_path = Path(io_dir) / "stdout", Path(io_dir) / "stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            killer = threading.Timer(timeout, _kill_group, args=(proc.pid,))
            killer.start()
            try:
                _, status, usage = os.wait4(proc.pid, 0)
            finally:
                killer.cancel()
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        return ProcessSample(
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            peak_rss_mib=usage.ru_maxrss * 1024 / MIB,  # Linux reports kilobytes
            returncode=proc.returncode,
            stdout=out_path.read_text(errors="replace"),
            stderr=err_path.read_text(errors="replace"),
        )


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Until the `strata serve` (or `opencode serve`) at `url`, started as `process`, answers `/global/health`;
    a process that exits first, or no answer within `timeout` seconds, is a RuntimeError saying which."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited {process.returncode} before it answered")
        try:
            if httpx.get(f"{url}/global/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer {url}/global/health within {timeout:.0f} s")


@contextmanager
def loopback_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """`handler` answering on a free loopback port, in threads of this process, until the block exits: the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------------------------------------------
# The scripted model server (the oracle's, as a separate process, so both CLIs meet the very same server)


def oracle_available() -> bool:
    return (ORACLE_DIR / "scripted_server.py").is_file()


def opencode_binary() -> Path | None:
    """The cached OpenCode of the pinned version (installed by the oracle's capture.sh), or None."""
    candidates = [ORACLE_CACHE / "node_modules" / ".bin" / "opencode"]
    candidates += sorted((ORACLE_CACHE / "node_modules").glob("opencode-*/bin/opencode"))
    for candidate in candidates:
        if not os.access(candidate, os.X_OK):
            continue
        try:
            version = subprocess.run(
                [str(candidate), "--version"], capture_output=True, text=True, timeout=60, check=False
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if version == OPENCODE_VERSION:
            return candidate
    return None


def ripgrep_dir() -> Path | None:
    """The directory holding the oracle's ripgrep 14.1.0, put first on PATH for both CLIs."""
    directory = ORACLE_CACHE / "rg" / "bin"
    return directory if (directory / "rg").is_file() else None


class ModelServer:
    """The oracle's scripted_server.py on a free port, with its recordings in `out`.

    Without the oracle (a checkout without ../shared/oracle), Strata's own `ScriptedServer` stands in, in a
    thread of this process: only Strata is measured then, since OpenCode's runs need the oracle too.
    """

    def __init__(self, script: Sequence[Mapping[str, Any]], out: Path) -> None:
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self._proc: subprocess.Popen[bytes] | None = None
        self._fallback: Any = None
        if not oracle_available():
            from strata_providers.testing import ScriptedServer

            self._fallback = ScriptedServer(list(script)).__enter__()
            self.port: int = self._fallback.port
            return
        self.port = free_port()
        script_path = out.parent / f"{out.name}.script.json"
        script_path.write_text(json.dumps(list(script)))
        server = ORACLE_DIR / "scripted_server.py"
        argv = [sys.executable, str(server), "--port", str(self.port), "--out", str(out), "--script", str(script_path)]
        self._proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(self.port)
        except OSError:
            self.stop()
            raise

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def main_requests(self) -> int:
        """Model requests received so far, title requests left out."""
        if self._fallback is not None:
            return len(self._fallback.main_requests)
        return len(list(self.out.glob("[0-9][0-9][0-9].json")))

    def stop(self) -> None:
        if self._fallback is not None:
            self._fallback.__exit__(None, None, None)
            self._fallback = None
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None


@contextmanager
def model_server(script: Sequence[Mapping[str, Any]], out: Path) -> Iterator[ModelServer]:
    server = ModelServer(script, out)
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------------------
# A loopback server for URL instructions: /instructions/NAME answers at once, /hang/NAME never answers


class UrlServer:
    """Serves `Remote rule NAME` at `/instructions/NAME`; `/hang/NAME` holds the connection until `stop()`."""

    def __init__(self) -> None:
        released = threading.Event()
        self._released = released

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                url = urlparse(self.path)
                if url.path.startswith("/hang/"):
                    released.wait()
                    return
                delay = float(parse_qs(url.query).get("delay", ["0"])[0])
                if delay:
                    released.wait(delay)
                body = f"Remote rule {url.path.rsplit('/', 1)[1]}".encode()
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="url-server", daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def url_server() -> Iterator[UrlServer]:
    server = UrlServer()
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------------------------------------------------
# Fixtures


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def git_commit_all(root: Path) -> None:
    """Make `root` a git repository with one commit whose hash is the same on every run (as capture.sh does)."""
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", *identity, "commit", "-q", "-m", "fixture"]):
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)


def mock_provider_config(
    port: int,
    model: str = "gpt-4o-mock",
    npm: str = "@ai-sdk/openai-compatible",
    *,
    attachment: bool = False,
    extra: Mapping[str, Any] | None = None,
) -> str:
    """An opencode.json that points both CLIs at the scripted server on `port`: a model taking tool calls (and
    attachments when `attachment`), with `extra` settings beside it."""
    capabilities = {"tool_call": True, **({"attachment": True} if attachment else {})}
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "mock": {
                "npm": npm,
                "name": "Mock",
                "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "x"},
                "models": {model: {"name": model, **capabilities}},
            }
        },
        "model": f"mock/{model}",
        **(extra or {}),
    }
    return json.dumps(config, indent=2) + "\n"


@contextmanager
def fresh_project(prefix: str) -> Iterator[tuple[Path, Path]]:
    """A temporary directory holding a new git repository `work` and an empty `home` beside it: (work, home)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as root:
        work, home = Path(root) / "work", Path(root) / "home"
        work.mkdir()
        home.mkdir()
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        yield work, home


def clean_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment capture.sh gives a CLI: PATH (ripgrep first), a fake HOME, LANG, TERM=dumb, no keys."""
    rg = ripgrep_dir()
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {
        "PATH": f"{rg}:{path}" if rg else path,
        "HOME": str(home),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "TERM": "dumb",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }
    if "TZ" in os.environ:
        env["TZ"] = os.environ["TZ"]
    return {**env, **(extra or {})}


def run_async(fn: Callable[[], Awaitable[Any]]) -> Any:
    """Run one coroutine function on a fresh asyncio event loop (anyio's asyncio backend)."""
    return anyio.run(fn)
