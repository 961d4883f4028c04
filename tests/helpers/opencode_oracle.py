"""The real OpenCode 1.18.33 (installed by the oracle in ~/.cache/strata-oracle) as a subprocess, for tests
that hand sessions between it and Strata; and the oracle's compare.py over requests a ScriptedServer recorded.

OpenCode runs with an explicit environment (a temp HOME and XDG dirs, nothing of the developer's), the
oracle's ripgrep first on PATH, and its auto-update, models fetch and sharing off, as capture.sh runs it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
from run_once import made_once

from strata_providers.testing import ScriptedServer

# Read at import: the suite's conftest gives every test a fresh HOME.
ORACLE = Path(os.environ.get("STRATA_ORACLE", "/work/shared/oracle"))
ORACLE_CACHE = Path(os.environ.get("STRATA_ORACLE_CACHE", Path.home() / ".cache" / "strata-oracle"))
OPENCODE = ORACLE_CACHE / "node_modules" / ".bin" / "opencode"
COMPARE = ORACLE / "compare.py"
RIPGREP = ORACLE_CACHE / "rg" / "bin"
TIMEOUT = 120
VERSION = "1.18.33"


def missing_reason() -> str | None:
    """Why the OpenCode tests cannot run here, or None when they can."""
    if not OPENCODE.exists():
        return f"OpenCode 1.18.33 is not installed at {OPENCODE} (the oracle's capture.sh installs it)"
    if not COMPARE.exists():
        return f"the oracle's compare.py is not at {COMPARE} (set STRATA_ORACLE)"
    return None


@attrs.frozen
class OpenCode:
    """Runs `opencode` in one project with one environment (whose XDG_DATA_HOME holds its database)."""

    project: Path
    env: Mapping[str, str]

    def __call__(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(OPENCODE), *args],
            cwd=self.project,
            env=dict(self.env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    @property
    def database(self) -> Path:
        return Path(self.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db"

    @contextmanager
    def serving(self) -> Iterator[str]:
        """`opencode serve` running (its database open) until the block ends; yields its URL."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [str(OPENCODE), "serve", "--port", str(port), "--hostname", "127.0.0.1"],
            cwd=self.project,
            env=dict(self.env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_answering(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_answering(url: str, process: subprocess.Popen[bytes]) -> None:
    """Until `GET /session` answers. A request sent as the port opens can hang for good, so each try is short."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"opencode serve exited with {process.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{url}/session", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"opencode serve did not answer at {url} within 90 s")


def opencode_env(home: Path, data_home: Path) -> dict[str, str]:
    """OpenCode's environment: its own HOME and config/cache/state dirs, the given data dir."""
    path = os.environ.get("PATH", "/usr/bin:/bin")
    if RIPGREP.is_dir():
        path = f"{RIPGREP}{os.pathsep}{path}"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": path,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_DATA_HOME": str(data_home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }


def capture_env(factory: pytest.TempPathFactory) -> dict[str, str]:
    """What capture.sh's environment gets so that it runs the installed OpenCode's `run` without asking its
    version first (`opencode --version`, ~0.8 s of CPU a capture): the version is checked once per pytest run
    instead, for every worker. Nothing, so capture.sh finds (or installs) OpenCode as before, when the
    installed one is not 1.18.33 or its path would not survive capture.sh's word splitting."""
    if not OPENCODE.exists() or any(c.isspace() for c in str(OPENCODE)):
        return {}
    binary = OPENCODE.resolve()
    stat = binary.stat()
    inputs = [str(OPENCODE), str(binary), str(stat.st_size), str(stat.st_mtime_ns)]

    def ask(into: Path) -> None:
        done = subprocess.run([str(OPENCODE), "--version"], capture_output=True, text=True, timeout=60, check=False)
        (into / "version.txt").write_text(done.stdout.strip() if done.returncode == 0 else "")

    checked = made_once(factory, "opencode-version", inputs, ask)
    if (checked / "version.txt").read_text() != VERSION:
        return {}
    return {"OPENCODE_CMD": f"{OPENCODE} run"}


def write_capture(server: ScriptedServer, out: Path, workdir: Path, home: Path) -> Path:
    """The server's recorded requests as a capture.sh run dir (`NNN.json`, `NNN_title.json`, meta)."""
    out.mkdir(parents=True, exist_ok=True)
    for number, request in enumerate((r for r in server.requests if r.method == "POST"), start=1):
        name = f"{number:03d}_title" if request.is_title else f"{number:03d}"
        (out / f"{name}.json").write_text(json.dumps(request.body))
        (out / f"{number:03d}.meta.json").write_text(json.dumps({"method": request.method, "path": request.path}))
    (out / "workdir.txt").write_text(f"{workdir}\n")
    (out / "home.txt").write_text(f"{home}\n")
    return out


def compare(a: Path, b: Path) -> list[dict[str, Any]]:
    """compare.py's rows (`field`, `status` OK/DIFF/SKIP, `a`, `b`) for two capture dirs."""
    done = subprocess.run(
        [sys.executable, str(COMPARE), str(a), str(b), "--json"], capture_output=True, text=True, check=False
    )
    rows: list[dict[str, Any]] = json.loads(done.stdout)["fields"]
    return rows


def history_fields(rows: Sequence[dict[str, Any]]) -> dict[str, tuple[str, Any, Any]]:
    """The rows about the conversation a request carries: roles, tool calls, results, texts, reasoning."""
    wanted = (".roles", ".tool_calls", ".result", ".reasoning", ".text", ".read.")
    return {
        row["field"]: (row["status"], row["a"], row["b"])
        for row in rows
        if ".messages" in row["field"] and any(key in row["field"] for key in wanted)
    }
