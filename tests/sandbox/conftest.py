"""Fixtures for the sandbox tests: a project with a secret beside it, the system's PATH for commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_kit import SYSTEM_PATH, Site, make_site


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Site:
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    return make_site(tmp_path)
