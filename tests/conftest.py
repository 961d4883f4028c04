"""Suite-wide guards: no network beyond loopback, no reads of the developer's real home or config."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from strata_core import http


@pytest.fixture(autouse=True)
def _loopback_only() -> Iterator[None]:
    http.set_loopback_only(True)
    yield
    http.set_loopback_only(False)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME and XDG dirs per test, and none of the caller's STRATA_/OPENCODE_ variables."""
    home = tmp_path_factory.mktemp("home")
    import os

    for key in list(os.environ):
        if key.startswith(("STRATA_", "OPENCODE_", "XDG_")) or key.endswith("_API_KEY"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After the whole suite: no MCP server process a test started is still running (each carries its test
    process's pid in `STRATA_TEST_MCP_OWNER`); a leftover fails the run."""
    from mcp_servers import wait_for_no_leftovers

    left = wait_for_no_leftovers()
    if left:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nMCP server processes left running after the suite: {left}", file=sys.stderr)
