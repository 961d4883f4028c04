"""Fixtures for the language-server and formatter tests: a Python project, an environment with the tools."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lsp_tools import tools_path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1.0"\n\n[tool.ruff]\n')
    (work / "calc.py").write_text("def add(a: int, b: int) -> int:\n    return a + b\n")
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "PATH": tools_path()}
