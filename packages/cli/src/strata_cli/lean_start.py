"""Start-up hygiene for commands that load the whole engine: measured, each worth 15-35 ms of every run.

A command wraps its first heavy imports (the composition root) in `heavy_imports()`:

- the cyclic garbage collector is off while they run: importing creates a few hundred thousand objects that
  all live until exit, and collecting over and over while they pile up finds nothing (~30 ms);
- afterwards those objects are frozen (`gc.freeze`), so no later collection scans them again: the turn's own
  collections stay small, and a full one no longer stalls a step for 10-20 ms;
- optional extras of third-party libraries that Strata never uses are skipped: structlog's rich support
  (tracebacks and pretty-printed locals for its console renderer and dict tracebacks; Strata renders its own
  log lines), which pulls in rich.console, rich.pretty, rich.traceback, rich.syntax and pygments (~20 ms;
  rich itself stays importable for whoever draws on a terminal), httpx's command-line client, which pulls
  in the same (~15-20 ms), and
  dependency_injector's YAML config loading, which imports PyYAML (~10 ms; Strata's own markdown parsing
  imports it when it first meets a file with frontmatter).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

UNUSED_EXTRAS = ("rich", "rich.traceback", "httpx._main", "yaml")
"""Modules that structlog, httpx and dependency_injector import only if they can; made unimportable while
those three load."""


def import_without_unused_extras() -> None:
    """Import structlog, httpx and dependency_injector with `UNUSED_EXTRAS` skipped (their `except ImportError`
    fallbacks apply)."""
    blocked = [name for name in UNUSED_EXTRAS if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # `import` raises ImportError for a None entry
    try:
        import dependency_injector.containers  # noqa: F401  (and .providers; both try PyYAML)
        import httpx  # noqa: F401
        import structlog  # noqa: F401
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]  # importable again for anyone who really wants it


@contextmanager
def heavy_imports() -> Iterator[None]:
    """Run the enclosed imports without garbage collection, then freeze what they created."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        import_without_unused_extras()
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
