"""MCP servers for the tests: the `mcp-server-time` package over stdio, and the suite's own fixture server
(`mcp_fixture_server.py`) over stdio or over streamable HTTP on a free loopback port, as `mcp` config entries."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FIXTURE_SERVER = Path(__file__).with_name("mcp_fixture_server.py")
MISBEHAVING_SERVER = Path(__file__).with_name("mcp_misbehaving_server.py")
OWNER = "STRATA_TEST_MCP_OWNER"
"""Every server a test starts carries this variable (the test process's pid), so leftovers can be found."""


def _marked(environment: dict[str, str] | None = None) -> dict[str, str]:
    return {OWNER: str(os.getpid()), **(environment or {})}


def marked(servers: dict[str, Any]) -> dict[str, Any]:
    """`mcp` entries of a recorded config, each local one given the leftover marker."""
    return {
        name: {**server, "environment": _marked(server.get("environment"))} if server["type"] == "local" else server
        for name, server in servers.items()
    }


def time_server(**extra: Any) -> dict[str, Any]:
    """`mcp-server-time` from PyPI (a dev dependency), run by this interpreter."""
    environment = _marked(extra.pop("environment", None))
    return {"type": "local", "command": [sys.executable, "-m", "mcp_server_time"], "environment": environment, **extra}


def fixture_server(**extra: Any) -> dict[str, Any]:
    environment = _marked(extra.pop("environment", None))
    return {
        "type": "local",
        "command": [sys.executable, str(FIXTURE_SERVER), "stdio"],
        "environment": environment,
        **extra,
    }


def misbehaving_server(*words: str, **extra: Any) -> dict[str, Any]:
    """`mcp_misbehaving_server.py`, breaking the protocol in the ways `words` name."""
    environment = _marked(extra.pop("environment", None))
    command = [sys.executable, str(MISBEHAVING_SERVER), *words]
    return {"type": "local", "command": command, "environment": environment, **extra}


def hanging_server(**extra: Any) -> dict[str, Any]:
    """A server that never answers `initialize`."""
    return fixture_server(environment={"MCP_FIXTURE_HANG": "1"}, **extra)


def leftover_servers(owner: int | None = None) -> list[int]:
    """Pids of live processes started for this test process's MCP configs (by their `OWNER` variable)."""
    marker = f"{OWNER}={owner or os.getpid()}".encode()
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def wait_for_no_leftovers(seconds: float = 10.0) -> list[int]:
    """The leftovers still alive after waiting up to `seconds` for them to exit."""
    deadline = time.monotonic() + seconds
    while (left := leftover_servers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def http_fixture_server(transport: str = "http") -> Iterator[str]:
    """The fixture server over streamable HTTP (or `sse`); yields its URL, stops it (and waits for it) on exit."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE_SERVER), transport, str(port)],
        env={**os.environ, **_marked()},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the MCP fixture server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/{'sse' if transport == 'sse' else 'mcp'}"
    finally:
        process.terminate()
        process.wait(timeout=10)
