"""MCP servers for the tests: the `mcp-server-time` package over stdio, and the suite's own fixture server
(`mcp_fixture_server.py`) over stdio or over streamable HTTP on a free loopback port, as `mcp` config entries."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

FIXTURE_SERVER = Path(__file__).with_name("mcp_fixture_server.py")


def time_server(**extra: Any) -> dict[str, Any]:
    """`mcp-server-time` from PyPI (a dev dependency), run by this interpreter."""
    return {"type": "local", "command": [sys.executable, "-m", "mcp_server_time"], **extra}


def fixture_server(**extra: Any) -> dict[str, Any]:
    return {"type": "local", "command": [sys.executable, str(FIXTURE_SERVER), "stdio"], **extra}


def hanging_server(**extra: Any) -> dict[str, Any]:
    """A server that never answers `initialize`."""
    return fixture_server(environment={"MCP_FIXTURE_HANG": "1"}, **extra)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def http_fixture_server() -> Iterator[str]:
    """The fixture server over streamable HTTP; yields its URL, stops it (and waits for it) on exit."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE_SERVER), "http", str(port)],
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
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
