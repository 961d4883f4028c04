"""strata_core is layered: its subpackages import each other one way only, and no module imports itself back.

The graph is read from the source, so an import inside a function or under `TYPE_CHECKING` counts as much as
one at the top: hiding an import does not break a cycle, moving the code to where it belongs does. The order
(`packages/core/README.md`, Layout) is `LAYERS` below, lowest first; a subpackage may import its own layer's
and the lower layers' modules, never a higher layer's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Set
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages/core/src"
ROOT = "strata_core"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"llm", "permission", "testing"}),
    frozenset({"config", "session", "snapshot", "history"}),
    frozenset({"context", "prompt"}),
    frozenset({"sandbox", "tool", "mcp", "lsp", "formatter"}),
    frozenset({"engine"}),
)
"""The subpackages, lowest first. The modules at the top of strata_core are the foundation under all of them
(`bus`, `message`, `project`, ...), except `container` and `runtime`, which wire the engine and sit on top."""

WIRING = frozenset({"container", "runtime"})


def module_files(source_root: Path, package: str = ROOT) -> dict[str, Path]:
    """Every module of `package` under `source_root`, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((source_root / package).rglob("*.py")):
        parts = path.relative_to(source_root).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _walk_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def imports_of(name: str, path: Path, modules: Set[str]) -> set[str]:
    """The modules of `modules` that `name` imports anywhere in its file (`from pkg import mod` names `pkg.mod`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _walk_imports(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([node.module] if node.module else [])])
        for alias in node.names:
            found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {module for module in found if module in modules and module != name}


def module_graph(source_root: Path, package: str = ROOT) -> dict[str, set[str]]:
    """Module -> the package's modules it imports; the root package (lazy re-exports of everything) is left out."""
    files = module_files(source_root, package)
    files.pop(package, None)
    return {name: imports_of(name, path, files.keys()) for name, path in files.items()}


def unit_of(module: str, package: str = ROOT) -> str:
    """A subpackage's short name (`tool`), or a top-level module's (`bus`)."""
    return module.removeprefix(f"{package}.").split(".")[0]


def subpackage_graph(graph: Mapping[str, Set[str]], package: str = ROOT) -> dict[str, set[str]]:
    units: dict[str, set[str]] = {}
    for module, imported in graph.items():
        edges = units.setdefault(unit_of(module, package), set())
        edges.update(unit_of(other, package) for other in imported)
    for unit, edges in units.items():
        edges.discard(unit)
    return units


def cycles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(unit: str) -> int:
    """A subpackage's layer; a top-level module is below every layer, the wiring above them all."""
    if unit in WIRING:
        return len(LAYERS)
    return next((at for at, layer in enumerate(LAYERS) if unit in layer), -1)


@pytest.fixture(scope="module")
def core_graph() -> dict[str, set[str]]:
    return module_graph(CORE)


def test_no_module_of_the_core_imports_itself_back(core_graph: dict[str, set[str]]) -> None:
    assert cycles(core_graph) == []


def test_the_core_subpackages_import_each_other_one_way(core_graph: dict[str, set[str]]) -> None:
    assert cycles(subpackage_graph(core_graph)) == []


def test_each_subpackage_imports_only_its_layer_and_those_below(core_graph: dict[str, set[str]]) -> None:
    upward = sorted(
        f"{module} imports {other}"
        for module, imported in core_graph.items()
        for other in imported
        if layer_of(unit_of(other)) > layer_of(unit_of(module))
    )
    assert upward == []


def test_every_subpackage_has_a_layer() -> None:
    subpackages = {path.parent.name for path in (CORE / ROOT).glob("*/__init__.py")}
    assert subpackages == set().union(*LAYERS)


def test_the_check_sees_a_cycle_hidden_in_a_function_or_under_type_checking(tmp_path: Path) -> None:
    package = tmp_path / ROOT
    for sub in ("alpha", "beta"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from strata_core.alpha import one\n")
    (package / "alpha" / "one.py").write_text("def later():\n    from strata_core.beta import two\n")
    (package / "beta" / "two.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..alpha.one import later\n"
    )
    graph = module_graph(tmp_path)
    assert graph["strata_core.alpha.one"] == {"strata_core.beta.two"}
    assert cycles(graph) == [["strata_core.alpha.one", "strata_core.beta.two"]]
    assert cycles(subpackage_graph(graph)) == [["alpha", "beta"]]
