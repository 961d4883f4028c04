"""Lazy re-exports for a package's public names: each loads with its module on first use.

A package's `__init__` names what siblings and applications import from it (`__all__`, and the same names
under `TYPE_CHECKING` for the type checker), and maps each to the module that defines it; importing the
package costs nothing until a name is used, so `strata --help` does not pay for the engine.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package`, whose public names are `exports` (name -> module)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        names = getattr(sys.modules[package], "__all__", None)
        return sorted(names if names is not None else exports)

    return __getattr__, __dir__


def by_module(groups: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """The `exports` of `lazy_exports` written module by module: `{module: names}` -> `{name: module}`."""
    return {name: module for module, names in groups.items() for name in names}
