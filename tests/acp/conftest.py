"""Fixtures for the ACP tests: a git project wired to a scripted model, and the command that starts an agent."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_harness import isolated_env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)
