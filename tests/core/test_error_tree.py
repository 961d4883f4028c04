"""One error tree: every exception class of every Strata package derives from `StrataError`, and the tree drawn
in `strata_core/errors.py` is the real one (each class under its real parent, in its real module)."""

from __future__ import annotations

import builtins
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys

import strata_core
import strata_core.errors
from strata_core.errors import StrataError

PACKAGES = ("strata_core", "strata_providers", "strata_server", "strata_cli")
_ENTRY = re.compile(r"^(?P<indent> *)- (?P<name>\w+)(?: \[(?P<also>[\w.]+)\])? +(?P<module>strata_\w+(?:\.\w+)*)$")


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of the four packages, by name (names are unique)."""
    found: dict[str, type[BaseException]] = {}
    for top in PACKAGES:
        package = importlib.import_module(top)
        for info in pkgutil.walk_packages(package.__path__, f"{top}."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__:
                    found[name] = value
    return found


def drawn_tree() -> dict[str, tuple[str, str, str | None]]:
    """The tree of the errors module's docstring: name -> (parent, module, the second base in brackets)."""
    doc = strata_core.errors.__doc__ or ""
    assert "* StrataError" in doc
    parents = ["StrataError"]
    drawn: dict[str, tuple[str, str, str | None]] = {}
    for line in doc.splitlines():
        entry = _ENTRY.match(line)
        if entry is None:
            continue
        depth = len(entry["indent"]) // 2  # "  - X" is a child of StrataError, "    - Y" of X
        assert depth <= len(parents), f"{entry['name']} is indented deeper than under the line before it"
        del parents[depth:]
        drawn[entry["name"]] = (parents[-1], entry["module"], entry["also"])
        parents.append(entry["name"])
    return drawn


def _second_base(cls: type[BaseException]) -> str | None:
    others = [base for base in cls.__bases__ if not issubclass(base, StrataError)]
    if not others:
        return None
    (other,) = others
    if other.__module__ == builtins.__name__:
        return other.__name__
    return f"{other.__module__.split('.')[0]}.{other.__name__}"


def _parent(cls: type[BaseException]) -> str:
    return next(base.__name__ for base in cls.__bases__ if issubclass(base, StrataError))


def test_every_exception_class_of_every_package_is_a_strata_error() -> None:
    outside = sorted(name for name, cls in exception_classes().items() if not issubclass(cls, StrataError))
    assert outside == []


def test_the_tree_in_the_errors_module_draws_every_class_under_its_real_parent() -> None:
    real = {
        name: (_parent(cls), cls.__module__, _second_base(cls))
        for name, cls in exception_classes().items()
        if cls is not StrataError and issubclass(cls, StrataError)
    }
    assert drawn_tree() == real


def test_the_check_reads_a_wrong_parent_in_the_tree() -> None:
    original = strata_core.errors.__doc__
    strata_core.errors.__doc__ = (original or "").replace(
        "    - CorrectedError                                    strata_core.permission.rules",
        "      - CorrectedError                                  strata_core.permission.rules",
    )
    try:
        assert drawn_tree()["CorrectedError"][0] == "RejectedError"
    finally:
        strata_core.errors.__doc__ = original


def test_the_cores_errors_are_re_exported_from_the_package() -> None:
    core = {name: cls for name, cls in exception_classes().items() if cls.__module__.startswith("strata_core.")}
    assert {name: getattr(strata_core, name) for name in core} == core
    assert set(core) <= set(strata_core.__all__)


def test_a_permission_refusal_and_a_lookup_keep_the_bases_older_except_clauses_catch() -> None:
    from strata_core import NoResponderError, PermissionRefusedError, SessionNotFoundError

    assert issubclass(NoResponderError, PermissionRefusedError)
    assert issubclass(SessionNotFoundError, LookupError)


def test_importing_the_errors_module_loads_nothing_else_of_strata() -> None:
    code = "import sys, strata_core.errors; print(sorted(m for m in sys.modules if m.startswith('strata')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "['strata_core', 'strata_core._exports', 'strata_core.errors']"
