"""Fixtures for the end-to-end engine scenarios (the harness itself is `tests/helpers/engine_harness.py`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("alpha\nbeta\n")
    (work / "src").mkdir()
    (work / "src" / "app.py").write_text("print('hello')\n")
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PATH": "/usr/bin:/bin"}
