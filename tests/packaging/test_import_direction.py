"""Imports go one way, `cli -> server | acp -> providers -> core`: the core never imports the wires, the server,
the ACP agent or the terminal, the providers never import the server, the ACP agent or the CLI, the server and
the ACP agent never import each other or the CLI, and the CLI imports the server only for `strata serve` and
the ACP agent only for `strata acp`. Read from the source, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "core": ("strata_providers", "strata_server", "strata_acp", "strata_cli"),
    "providers": ("strata_server", "strata_acp", "strata_cli"),
    "server": ("strata_acp", "strata_cli"),
    "acp": ("strata_server", "strata_cli"),
}
SERVER_USERS = {"packages/cli/src/strata_cli/commands/serve.py", "packages/cli/src/strata_cli/serve_session.py"}
"""The only CLI modules that may import the server: `strata serve` and its body."""
ACP_USERS = {"packages/cli/src/strata_cli/acp_session.py"}
"""The only CLI module that may import the ACP agent: the body of `strata acp` (which the command imports when run)."""


def imported_modules(source: Path) -> set[str]:
    """Every module a file imports, at top level or inside functions, `TYPE_CHECKING` blocks included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"), filename=str(source))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def wrong_way_imports(package: str) -> list[str]:
    forbidden = FORBIDDEN[package]
    problems = []
    for source in sorted((REPO / "packages" / package / "src").rglob("*.py")):
        for module in sorted(imported_modules(source)):
            if module.split(".")[0] in forbidden:
                problems.append(f"{source.relative_to(REPO)} imports {module}")
    return problems


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_lies_below_it(package: str) -> None:
    assert wrong_way_imports(package) == []


def cli_users_of(package: str) -> set[str]:
    return {
        str(source.relative_to(REPO))
        for source in (REPO / "packages/cli/src").rglob("*.py")
        if any(module.split(".")[0] == package for module in imported_modules(source))
    }


def test_only_strata_serve_imports_the_server() -> None:
    assert cli_users_of("strata_server") == SERVER_USERS


def test_only_strata_acp_imports_the_acp_agent() -> None:
    assert cli_users_of("strata_acp") == ACP_USERS


def test_the_check_sees_a_wrong_way_import(tmp_path: Path) -> None:
    source = tmp_path / "bad.py"
    source.write_text("def later():\n    from strata_cli.main import main\n    import strata_providers.catalog\n")
    assert imported_modules(source) == {"strata_cli.main", "strata_providers.catalog"}
