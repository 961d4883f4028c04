"""The benchmarks package lives at the repository root, outside every installed workspace package."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(autouse=True)
def _structlog_restored() -> Iterator[None]:
    """The runner's `main()` quiets structlog for the whole process; tests run after it check warnings."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)
