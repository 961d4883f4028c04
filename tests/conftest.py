"""Suite-wide guards (no network beyond loopback, no reads of the developer's real home or config), and how the
suite is spread over pytest-xdist's workers."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """One real PostgreSQL server for the whole session (of this worker), stopped at the end; skips saying why
    when Debian's server binaries are missing or cannot run here (`.ci/run` installs them)."""
    from postgres_server import PostgresUnavailable, remove, start_postgres

    try:
        server = start_postgres()
    except PostgresUnavailable as error:
        pytest.skip(f"no PostgreSQL server for the shared-store tests: {error}")
    try:
        yield server
    finally:
        remove(server)


@pytest.fixture
def postgres_url(postgres_server: Any) -> str:
    """The URL of a new, empty database on the session's PostgreSQL server."""
    return str(postgres_server.fresh_database())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After the whole suite: no MCP server process a test started is still running (each carries its test
    process's pid in `STRATA_TEST_MCP_OWNER`); a leftover fails the run."""
    from mcp_servers import wait_for_no_leftovers

    left = wait_for_no_leftovers()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports them (pytest_testnodedown)
        workeroutput["mcp_leftovers"] = left
        return
    left = [*left, *session.config.stash.get(_WORKER_LEFTOVERS, [])]
    if left:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nMCP server processes left running after the suite: {left}", file=sys.stderr)


# --- Running in parallel (pytest-xdist, `-n 4 --dist loadscope --no-loadscope-reorder` in pyproject.toml) --------

RANK = {"opencode_live": 0, "slow": 1}
"""Modules holding such tests start first: the long ones ending last would leave the other workers idle."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Whole modules move, the likely longest first: each goes to one worker, its module fixtures built once.
    The modules of OpenCode-live tests, then of slow ones, then the rest; within each, those with the most such
    tests first. xdist's own reorder (by test count alone) is off in pyproject.toml: it sent the one-test modules
    that run OpenCode for minutes last, so the run ended on them with the other workers idle."""
    ranks: dict[str, list[int]] = {}
    for item in items:
        marks = [RANK[m.name] for m in item.iter_markers() if m.name in RANK]
        ranks.setdefault(item.nodeid.split("::")[0], []).append(min(marks, default=len(RANK)))

    def longest_first(item: pytest.Item) -> tuple[int, int]:
        module = ranks[item.nodeid.split("::")[0]]
        return min(module), -module.count(min(module))

    items.sort(key=longest_first)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: with `-p no:xdist` there is no controller
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the controller: a worker's MCP leftovers (it has no terminal of its own to report them on)."""
    left = getattr(node, "workeroutput", {}).get("mcp_leftovers", [])
    node.config.stash.setdefault(_WORKER_LEFTOVERS, []).extend(left)


_WORKER_LEFTOVERS = pytest.StashKey[list[int]]()
