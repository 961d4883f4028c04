"""Fixtures for the MCP scenarios (server configs are in `tests/helpers/mcp_servers.py`)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_servers import wait_for_no_leftovers


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PATH": "/usr/bin:/bin"}


@pytest.fixture(autouse=True)
def no_server_outlives_its_test() -> Iterator[None]:
    """Every MCP server process a test started is gone once the test is over (its runtime closed)."""
    yield
    assert wait_for_no_leftovers() == [], "MCP server processes were left running"
