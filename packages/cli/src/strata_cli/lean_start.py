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
  `sys.modules` as soon as httpx is loaded, so nothing in the process is left without the real module;
- attrs reuses the methods it compiled for each data class in an earlier run (`class_code`, ~80 ms: a
  quarter of the imports);
- dependency_injector loads without pydantic (~25-35 ms) and Starlette's request module (~10 ms), which it
  imports for features Strata does not use (`import_dependency_injector_lean`), the same way.

These are process-wide decisions, which is why they live here, in the application, and nowhere in the core.
What is no longer done: making optional modules unimportable while libraries load (`sys.modules[name] =
None`), which left structlog without rich tracebacks and dependency_injector without YAML loading for the
rest of the process (both cache the ImportError). structlog is not imported at all now (the core uses it only
when the application imported it, see `strata_core.logging`); PyYAML (~8 ms), which dependency_injector
imports for `from_yaml`, is imported when that (or anything else asking dependency_injector's `yaml`) is
first used: dependency_injector then holds a module that answers from the real PyYAML, and a `YamlLoader`
that is the real `SafeLoader` subclass, made on first use.
"""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

YOUNG_GENERATION_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation. Measured on the 10,000-message conversion:
2,000 and 5,000 still let a full collection into some conversions; 10,000 and above none. What it costs: up
to that many objects of cyclic garbage wait a little longer to be freed (a few MiB at most)."""


@contextmanager
def heavy_imports() -> Iterator[None]:
    """Run the enclosed imports without garbage collection, then settle the collector for the process."""
    from strata_cli.class_code import cache_file, reuse_converter_code, reused_class_code

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        path = cache_file(_user_cache_dir)
        with reused_class_code(path):
            import_httpx_without_its_command_line()
            import_dependency_injector_lean()
            yield
        reuse_converter_code(path.with_suffix(".converters"))
    finally:
        settle_gc()
        if was_enabled:
            gc.enable()


def before_exit() -> None:
    """What the process keeps for the next one as it leaves: the converters cattrs compiled during the run."""
    from strata_cli.class_code import save_converter_code

    save_converter_code()


def _user_cache_dir() -> Path:
    """The user's cache directory, asked for only where Python writes no bytecode beside the package
    (`StrataPaths` is a data class: attrs is then loaded before `reused_class_code`, and its own classes
    compile as usual; elsewhere attrs loads inside the block, which serves them their stored code too)."""
    from strata_core.config import StrataPaths

    return StrataPaths.from_env().cache


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
    with _standing_in({"httpx._main": {"main": _httpx_main}}):
        import httpx  # noqa: F401  (its `from ._main import main` takes the stand-in's)


class _NoStarletteRequest:
    """Stands in for `starlette.requests.Request` while dependency_injector loads: nothing is an instance of it."""


def import_dependency_injector_lean() -> None:
    """Import dependency_injector without two libraries it loads for features Strata does not use, each
    replaced by a stand-in while it loads (the stand-ins leave `sys.modules` again, for whoever imports the
    real ones later):

    - `starlette.requests` (~10 ms), whenever Starlette is installed (it is where strata-server is): its
      wiring checks injected arguments against Starlette's `Request`; Strata uses no wiring;
    - pydantic (~25-35 ms, most of it pydantic-core's schema module), which it imports only to read
      `pydantic.VERSION` in search of pydantic 1's `BaseSettings` for `Configuration.from_pydantic`; with
      pydantic 2 that feature needs pydantic-settings, which it then imports instead (and gets no stand-in);
    - PyYAML (~8 ms), which its `providers` and `containers` modules import for `from_yaml` and
      `from_yaml_schema`: they keep a module that imports the real one at first use (`_YamlOnUse`).
    """
    if "dependency_injector.wiring" in sys.modules and "dependency_injector.containers" in sys.modules:
        return
    stand_ins: dict[str, dict[str, object]] = {}
    if "starlette.requests" not in sys.modules:
        stand_ins["starlette.requests"] = {"Request": _NoStarletteRequest}
    pydantic_version = _pydantic_version_for_dependency_injector()
    if pydantic_version is not None:
        stand_ins["pydantic"] = {"VERSION": pydantic_version}
    yaml_on_use = None
    if "yaml" not in sys.modules and _installed("yaml"):  # without PyYAML, dependency_injector says so itself
        yaml_on_use = _YamlOnUse("yaml", "PyYAML, imported at first use (strata_cli.lean_start).")
        yaml_on_use.__dict__["SafeLoader"] = _PlaceholderSafeLoader
    with _standing_in(stand_ins, {"yaml": yaml_on_use} if yaml_on_use is not None else {}):
        import dependency_injector.containers
        import dependency_injector.wiring  # noqa: F401
    if yaml_on_use is not None:
        _leave_yaml_to_first_use(yaml_on_use)


class _YamlOnUse(types.ModuleType):
    """What dependency_injector holds as `yaml` after start-up: each attribute asked of it comes from the real
    PyYAML, imported the first time (`from_yaml` asks for `yaml.load`, `from_yaml_schema` for `SafeLoader`)."""

    def __getattr__(self, name: str) -> Any:
        import yaml  # type: ignore[import-untyped]  # the real one: the stand-in has left sys.modules

        return getattr(yaml, name)


class _PlaceholderSafeLoader:
    """`yaml.SafeLoader` while dependency_injector loads: its `YamlLoader` subclasses it, and is replaced after."""


class _YamlLoaderOnUse(type):
    """The metaclass of what stands for dependency_injector's `YamlLoader`: the class called (as `yaml.load`
    calls its loader) or asked for an attribute (`add_constructor`) is the real one, a subclass of PyYAML's
    `SafeLoader` made the first time, as dependency_injector defines it."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return _real_yaml_loader()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(_real_yaml_loader(), name)


class _YamlLoader(metaclass=_YamlLoaderOnUse):
    """dependency_injector's `YamlLoader` (PyYAML's `SafeLoader`), made when first used."""


@cache
def _real_yaml_loader() -> type:
    import yaml

    namespace = {"__module__": "dependency_injector.providers", "__doc__": _YamlLoader.__doc__}
    return type("YamlLoader", (yaml.SafeLoader,), namespace)


def _leave_yaml_to_first_use(yaml_on_use: types.ModuleType) -> None:
    """After dependency_injector loaded against the stand-in: its `YamlLoader` becomes one that builds the
    real loader on first use, and the stand-in answers every attribute from the real PyYAML (~8 ms of imports
    a run that reads no YAML through dependency_injector never pays)."""
    from dependency_injector import providers

    del yaml_on_use.__dict__["SafeLoader"]
    if getattr(providers, "YamlLoader", None) is not None and providers.YamlLoader.__mro__[1] is _PlaceholderSafeLoader:
        providers.YamlLoader = _YamlLoader  # type: ignore[misc,assignment]


def _installed(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


def _pydantic_version_for_dependency_injector() -> str | None:
    """The installed pydantic's version, when dependency_injector would import pydantic only to read it:
    pydantic is installed and not loaded yet, and pydantic-settings (which dependency_injector would import
    instead, pydantic and all) is not installed, and it is pydantic 2 or later. None otherwise."""
    from importlib.util import find_spec

    if "pydantic" in sys.modules or find_spec("pydantic") is None or find_spec("pydantic_settings") is not None:
        return None
    from strata_core.distributions import installed_version

    version = installed_version("pydantic")
    return None if version is None or version.startswith("1.") else version  # pydantic 1: the real one


@contextmanager
def _standing_in(
    modules: dict[str, dict[str, object]], made: dict[str, types.ModuleType] | None = None
) -> Iterator[None]:
    """While the block runs, each of `modules` (name -> attributes) is a stand-in module holding those
    attributes, and each of `made` the module given; afterwards the names leave `sys.modules`, so a later
    import loads the real modules."""
    placed: dict[str, types.ModuleType] = dict(made or {})
    sys.modules.update(placed)
    for name, attributes in modules.items():
        stand_in = types.ModuleType(name, "Stand-in while a library loads (strata_cli.lean_start).")
        stand_in.__dict__.update(attributes)
        placed[name] = sys.modules[name] = stand_in
    try:
        yield
    finally:
        for name, stand_in in placed.items():
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]


def _httpx_main(*args: Any, **kwargs: Any) -> Any:
    """httpx's command-line client, imported the first time it is called."""
    from httpx._main import main

    return main(*args, **kwargs)
