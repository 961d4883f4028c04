"""Fixtures for the end-to-end CLI tests (the harness itself is `cli_harness.py`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_harness import STRATA, Cli, isolated_env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git project (the worktree is what sessions and instruction discovery hang off)."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
def cli(tmp_path: Path, project: Path) -> Cli:
    assert STRATA.exists(), f"the strata console script is not installed at {STRATA}; run `uv sync`"
    return Cli(project, isolated_env(tmp_path))
