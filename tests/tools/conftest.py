"""Fixtures for the tool tests: a project on disk, a tool context, a recording permission asker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tool_fakes import Asker, MakeContext, Updates

from strata_core.llm import ModelInfo
from strata_core.tool.contract import ToolContext
from strata_core.tool.truncation import Truncation


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project (an empty `.git` is enough for ignore rules to apply), resolved so paths compare equal."""
    root = (tmp_path / "project").resolve()
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the project, outside it."""
    other = (tmp_path / "elsewhere").resolve()
    other.mkdir()
    return other


@pytest.fixture
def asker() -> Asker:
    return Asker()


@pytest.fixture
def updates() -> Updates:
    return Updates()


@pytest.fixture
def truncation(tmp_path: Path) -> Truncation:
    return Truncation(tmp_path / "data" / "tool-output")


@pytest.fixture
def make_ctx(project: Path, asker: Asker, updates: Updates) -> MakeContext:
    def make(**overrides: Any) -> ToolContext:
        values: dict[str, Any] = {
            "session_id": "ses_test",
            "message_id": "msg_test",
            "call_id": "call_test",
            "agent": "build",
            "ruleset": asker.rules,
            "directory": project,
            "worktree": project,
            "model": ModelInfo(provider_id="mock", id="mock-model"),
            "ask": asker,
            "update_metadata": updates,
        }
        values.update(overrides)
        return ToolContext(**values)

    return make


@pytest.fixture
def ctx(make_ctx: MakeContext) -> ToolContext:
    return make_ctx()
