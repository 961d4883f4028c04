"""Start-up hygiene for commands that load the whole engine, and the process's garbage-collector settings.

A command wraps its first heavy imports (the composition root) in `heavy_imports()`:

- the cyclic garbage collector is off while they run: importing creates a few hundred thousand objects that
  all live until exit, and collecting over and over while they pile up finds nothing (~30 ms);
- afterwards those objects are frozen (`gc.freeze`), so no later collection scans them again: the turn's own
  collections stay small, and a full one no longer stalls a step for 10-20 ms;
- and the youngest generation is collected every `YOUNG_GENERATION_THRESHOLD` allocations instead of
  CPython's 700 (`settle_gc`), for the rest of the process: a session's history is loaded after start-up,
  so it is not frozen, and converting a long one for the model (tens of thousands of objects that all
  survive) made CPython collect the whole heap, history included, about once per conversion: 10,000 stored
  messages took ~130 ms of CPU instead of ~63 ms (benchmarks/README.md, "History conversion");
- httpx's command-line client is not loaded: `import httpx` imports it only to offer `httpx.main`, and it
  pulls in rich's console, progress, syntax and table modules and pygments (~25 ms). While httpx loads, a
  stand-in answers for `httpx._main`; its `main` imports the real client when called, and the stand-in leaves
  `sys.modules` as soon as httpx is loaded, so nothing in the process is left without the real module.

These are process-wide decisions, which is why they live here, in the application, and nowhere in the core.
What is no longer done: making optional modules unimportable while libraries load (`sys.modules[name] =
None`), which left structlog without rich tracebacks and dependency_injector without YAML loading for the
rest of the process (both cache the ImportError). structlog is not imported at all now (the core uses it only
when the application imported it, see `strata_core.logging`); dependency_injector imports PyYAML (~12 ms),
which is what its `from_yaml` needs.
"""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

YOUNG_GENERATION_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation. Measured on the 10,000-message conversion:
2,000 and 5,000 still let a full collection into some conversions; 10,000 and above none. What it costs: up
to that many objects of cyclic garbage wait a little longer to be freed (a few MiB at most)."""


@contextmanager
def heavy_imports() -> Iterator[None]:
    """Run the enclosed imports without garbage collection, then settle the collector for the process."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        import_httpx_without_its_command_line()
        import_dependency_injector_without_starlette()
        yield
    finally:
        settle_gc()
        if was_enabled:
            gc.enable()


def settle_gc() -> None:
    """The collector settings of a `strata` process once its modules are loaded: what is alive now lives until
    exit, so it is frozen out of every later collection, and young collections run less often."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION_THRESHOLD, middle, oldest)


def import_httpx_without_its_command_line() -> None:
    """Import httpx with a stand-in for `httpx._main` whose `main` loads the real one when it is called."""
    if "httpx" in sys.modules:
        return
    stand_in = types.ModuleType("httpx._main", "Stand-in while httpx loads (strata_cli.lean_start).")
    stand_in.main = _httpx_main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = stand_in
    try:
        import httpx  # noqa: F401  (its `from ._main import main` takes the stand-in's)
    finally:
        if sys.modules.get("httpx._main") is stand_in:
            del sys.modules["httpx._main"]  # a later `import httpx._main` loads the real module


class _NoStarletteRequest:
    """Stands in for `starlette.requests.Request` while dependency_injector loads: nothing is an instance of it."""


def import_dependency_injector_without_starlette() -> None:
    """Import dependency_injector without the ~10 ms of `starlette.requests` its wiring module loads whenever
    Starlette is installed (it is where strata-server is): Strata uses no wiring, so the wiring's Starlette
    check gets a stand-in, and `starlette.requests` leaves `sys.modules` again for the server to import."""
    if "dependency_injector.wiring" in sys.modules or "starlette.requests" in sys.modules:
        return
    stand_in = types.ModuleType(
        "starlette.requests", "Stand-in while dependency_injector loads (strata_cli.lean_start)."
    )
    stand_in.Request = _NoStarletteRequest  # type: ignore[attr-defined]
    sys.modules["starlette.requests"] = stand_in
    try:
        import dependency_injector.wiring  # noqa: F401
    finally:
        if sys.modules.get("starlette.requests") is stand_in:
            del sys.modules["starlette.requests"]


def _httpx_main(*args: Any, **kwargs: Any) -> Any:
    """httpx's command-line client, imported the first time it is called."""
    from httpx._main import main

    return main(*args, **kwargs)
