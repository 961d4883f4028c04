"""The siblings (providers, server, ACP, CLI) reach the core only through its public modules, and those modules show
only what they export: the core's inner modules can move without breaking an importer."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PUBLIC = {
    "strata_core",
    "strata_core.bus",
    "strata_core.clock",
    "strata_core.config",
    "strata_core.context",
    "strata_core.distributions",
    "strata_core.engine",
    "strata_core.errors",
    "strata_core.history",
    "strata_core.http",
    "strata_core.ids",
    "strata_core.json_text",
    "strata_core.llm",
    "strata_core.logging",
    "strata_core.mcp",
    "strata_core.message",
    "strata_core.permission",
    "strata_core.project",
    "strata_core.prompt",
    "strata_core.redaction",
    "strata_core.runtime",
    "strata_core.sandbox",
    "strata_core.serialization",
    "strata_core.session",
    "strata_core.session_info",
    "strata_core.snapshot",
    "strata_core.testing",
    "strata_core.text",
    "strata_core.texts",
    "strata_core.tool",
    "strata_core.tool.support",
}
"""The core's public modules: the package, its subpackages (not the modules inside them) and the top-level
modules of a concept other packages build on."""

SIBLINGS = ("providers", "server", "acp", "cli")


def core_imports(source: Path) -> set[str]:
    """The `strata_core` modules a file imports, anywhere in it (functions and `TYPE_CHECKING` blocks too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"), filename=str(source))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "strata_core")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("strata_core"):
            found.add(node.module or "")
    return found


def private_imports(package: str) -> list[str]:
    return [
        f"{source.relative_to(REPO)} imports {module}"
        for source in sorted((REPO / "packages" / package / "src").rglob("*.py"))
        for module in sorted(core_imports(source) - PUBLIC)
    ]


@pytest.mark.parametrize("package", SIBLINGS)
def test_siblings_import_the_core_through_its_public_modules_only(package: str) -> None:
    assert private_imports(package) == []


def test_the_check_sees_a_deep_import(tmp_path: Path) -> None:
    source = tmp_path / "deep.py"
    source.write_text("def later():\n    from strata_core.session.sqlite_store import SqliteSessionStore\n")
    assert core_imports(source) - PUBLIC == {"strata_core.session.sqlite_store"}


LAZY = sorted(name for name in PUBLIC if hasattr(importlib.import_module(name), "__getattr__"))
"""The public packages whose names load on first use (the root, its subpackages of re-exports)."""


def test_the_root_package_is_lazy() -> None:
    assert "strata_core" in LAZY


@pytest.mark.parametrize("module", LAZY)
def test_a_lazy_public_module_shows_only_what_it_exports_and_each_name_loads(module: str) -> None:
    imported = importlib.import_module(module)
    assert set(dir(imported)) == set(imported.__all__)
    for name in imported.__all__:
        getattr(imported, name)
