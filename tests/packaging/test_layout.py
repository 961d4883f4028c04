"""The layout keeps its promises: no module grows past 400 lines (past that it is two concepts), and no public
class name stands for two different types across the packages."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "packages").glob("*/src/**/*.py"))
MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines() -> None:
    too_long = {
        str(p.relative_to(REPO)): n for p in SOURCES if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert too_long == {}


def test_no_public_class_name_is_used_for_two_types() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for source in SOURCES:
        for node in ast.parse(source.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(source.relative_to(REPO)))
    assert {name: places for name, places in where.items() if len(places) > 1} == {}
