"""Fixtures for the end-to-end CLI tests (the harness itself is `tests/helpers/cli_harness.py`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pexpect
import pytest
from cli_harness import STRATA, Cli, isolated_env
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git project (the worktree is what sessions and instruction discovery hang off)."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
def cli(request: pytest.FixtureRequest, tmp_path: Path, project: Path) -> Cli:
    """`strata` in the test's project and home: run in this process (`cli_in_process`), or as a process for a
    test marked `strata_process` (one whose subject is the process: its imports, signals, exit, output pipes)."""
    assert STRATA.exists(), f"the strata console script is not installed at {STRATA}; run `uv sync`"
    in_process = request.node.get_closest_marker("strata_process") is None
    return Cli(project, isolated_env(tmp_path), in_process=in_process)


@pytest.fixture
def scripted() -> Iterator[Callable[[list[dict[str, Any]]], ScriptedServer]]:
    """Starts a loopback ScriptedServer with the given script (stopped after the test)."""
    with ExitStack() as stack:

        def start(script: list[dict[str, Any]]) -> ScriptedServer:
            return stack.enter_context(ScriptedServer(script))

        yield start


@pytest.fixture
def terminal(cli: Cli) -> Iterator[Callable[..., Terminal]]:
    children: list[pexpect.spawn] = []

    def start(*args: str, **extra_env: str) -> Terminal:
        env = {**cli.env, "TERM": "xterm-256color", **extra_env}
        env.pop("NO_COLOR", None)
        child = pexpect.spawn(
            str(STRATA), list(args), cwd=str(cli.project), env=env, encoding="utf-8", dimensions=(40, 120), timeout=20
        )
        children.append(child)
        return Terminal(child)

    yield start
    for child in children:
        child.terminate(force=True)
