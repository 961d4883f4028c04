"""The methods attrs generates for each data class, compiled once and kept between runs of `strata`.

attrs writes the source of every class's `__init__`, `__repr__`, `__eq__`, `__hash__`, ... as one script and
`compile()`s it when the class is created: ~0.3 ms a class, and `strata run` creates ~260 of them at start-up,
a quarter of its import time (~80 ms). The scripts are the same from run to run, so `reused_class_code()`
keeps the compiled code objects in one file and hands attrs the stored one when the same script comes again;
what is missing is compiled as attrs would have compiled it, and stored at the end. The file is only ever a
cache: unreadable, stale or absent, attrs compiles as usual.

The file is bytecode of the installed libraries, so it lives where Python keeps theirs (`cache_file`): in
this package's `__pycache__` (or under `PYTHONPYCACHEPREFIX`), beside the `.pyc` files, and it is warm
whenever they are, for every user and HOME of the installation; where Python writes no bytecode (read-only
install, `PYTHONDONTWRITEBYTECODE`), in the user's cache directory.

cattrs does the same for the (un)structure function of each class it converts, at the class's first
conversion (the config's first read, the first writes of a run): `reuse_converter_code()` serves those from
a second file beside the first for the rest of the process, and `save_converter_code()` adds the new ones as
the process leaves (`lean_start.before_exit`).

One part of a script differs between processes: the class's own number at the start of `__hash__`'s tuple
(attrs takes it from `hash()` of a string, which CPython randomizes per process). It is stored as a
placeholder, and the code object gets this process's number back on the way out.

This reaches into attrs (it shadows `compile` in `attr._make`, the one place attrs compiles; while attrs itself
is imported inside the block, the builtin `compile`, for the scripts of attrs' own 28 classes, every other call
passed on as made), which is why it is the application's decision, made for its own start-up only
(`lean_start.heavy_imports`), and undone when the block ends; an attrs that no longer compiles there is left
alone.
"""

from __future__ import annotations

import builtins
import marshal
import os
import re
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

MAX_ENTRIES = 3000
"""Scripts kept at most; past that, the file keeps only what the run that wrote it used (upgrades and edited
classes leave scripts nobody asks for again)."""

_HASH_NUMBER = re.compile(r"(hash\(\(\n[ \t]+)(-?\d+)(,\n)")
_PLACEHOLDER = 2**64 + 0x5354_5241
"""Stands for the per-process number in a stored `__hash__`: no `hash()` value is this large."""

_ATTRS_FILENAME = "<attrs generated "
"""How the file name attrs gives every script it compiles begins (`attr._make._generate_unique_filename`)."""
_CONVERTERS_FILENAME = "<cattrs generated "
"""How cattrs' file names for the (un)structure functions it generates begin (`cattrs.gen`)."""
_COMPILE = builtins.compile
_converter_code: list[tuple[Path, _CodeCache]] = []
"""The converter caches in place in this process, with their files (`reuse_converter_code`)."""

Key = tuple[str, str]
"""(filename, script with the placeholder): what attrs compiles, the same in every process."""


def cache_file(user_cache_dir: Path | Callable[[], Path]) -> Path:
    """Where the compiled methods are kept: beside this module's own bytecode when Python writes bytecode
    there, else under `user_cache_dir` (or what it returns: asked only then, since knowing it may take
    imports, attrs among them); one file per interpreter version (its bytecode is its own)."""
    from importlib.util import cache_from_source

    name = f"class_code.{sys.implementation.cache_tag}.methods"
    try:
        beside = Path(cache_from_source(__file__)).with_name(name)
    except (NotImplementedError, ValueError):  # no bytecode cache for this interpreter or this file
        beside = None
    if beside is not None and not sys.dont_write_bytecode and os.access(beside.parent, os.W_OK):
        return beside
    return (user_cache_dir() if callable(user_cache_dir) else user_cache_dir) / "class-code" / name


@contextmanager
def reused_class_code(path: Path) -> Iterator[None]:
    """While the block runs, attrs takes the compiled methods of a class from `path` when it has them; what
    it had to compile is added to `path` at the end. When attrs is not loaded yet, the classes attrs itself
    defines as it loads (its validators, `Attribute`, ...: 28 of them) are served the same way."""
    cache = _CodeCache(_load(path))
    try:
        with _while_attrs_loads(cache):
            import attr._make as attrs_make
    except ImportError:  # pragma: no cover - attrs is a dependency of the core
        yield
        return
    if "compile" in vars(attrs_make) or not hasattr(attrs_make, "_compile_and_eval"):
        yield  # another hook is in place, or attrs compiles elsewhere now: leave it alone
        return
    # Shadows the builtin for attr._make only.
    attrs_make.compile = cache.compile  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del attrs_make.compile  # type: ignore[attr-defined]
        if cache.compiled:
            _save(path, cache.to_store())


@contextmanager
def _while_attrs_loads(cache: _CodeCache) -> Iterator[None]:
    """While attrs is imported (if it is not yet), the builtin `compile` is the cache's: attrs compiles the
    methods of its own classes before the module holds a name to shadow. Every other call is passed on as
    made, and the builtin is back as soon as the import ends."""
    if "attr._make" in sys.modules:
        yield
        return
    builtin = builtins.compile
    builtins.compile = cache.compile
    try:
        yield
    finally:
        builtins.compile = builtin


def reuse_converter_code(path: Path) -> None:
    """For the rest of the process, the (un)structure functions cattrs generates (its converters write a
    script per class and compile it, ~0.15 ms each: a `strata run` makes ~47 as it reads the config and stores
    the first messages) are taken from `path` when stored; `save_converter_code()`, as the process leaves,
    adds what had to be compiled. Done once, after the start-up imports (cattrs is loaded by then)."""
    generating = sys.modules.get("cattrs.gen")
    if generating is None or "compile" in vars(generating):
        return  # not loaded, or another hook is in place: leave it alone
    cache = _CodeCache(_load(path), filenames=_CONVERTERS_FILENAME, module="cattrs.gen")
    generating.compile = cache.compile  # type: ignore[attr-defined]  # shadows the builtin there only
    _converter_code.append((path, cache))


def save_converter_code() -> None:
    """Add the converters compiled since `reuse_converter_code` (or the last save) to their file."""
    for path, cache in _converter_code:
        if cache.compiled:
            _save(path, cache.to_store())
            cache.stored.update(cache.compiled)
            cache.compiled.clear()


class _CodeCache:
    """`compile` for attrs' (or cattrs') scripts: a stored code object when there is one, a fresh one kept
    otherwise."""

    def __init__(
        self, stored: dict[Key, types.CodeType], filenames: str = _ATTRS_FILENAME, module: str = "attr._make"
    ) -> None:
        self.stored = stored
        self.filenames = filenames
        """How the names of the files the library compiles begin: other calls are passed on as made."""
        self.module = module
        """The library's module that calls `compile`, whose future flags its calls inherit."""
        self.flags: int | None = None
        self.used: dict[Key, types.CodeType] = {}
        self.compiled: dict[Key, types.CodeType] = {}

    def compile(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        if (
            args
            or kwargs
            or mode != "exec"
            or not isinstance(source, str)
            or not isinstance(filename, str)
            or not filename.startswith(self.filenames)
        ):
            return _COMPILE(source, filename, mode, *args, **kwargs)  # not the call the library makes: as asked
        number = _HASH_NUMBER.search(source)
        script = source if number is None else f"{source[: number.start(2)]}{_PLACEHOLDER}{source[number.end(2) :]}"
        key = (filename, script)
        code = self.stored.get(key)
        if code is None:
            # dont_inherit with the calling module's own future flags: compiled exactly as its call would compile.
            code = _COMPILE(script, filename, "exec", self._flags(), True)
            self.compiled[key] = code
        else:
            self.used[key] = code
        return code if number is None else _with_number(code, int(number.group(2)))

    def _flags(self) -> int:
        if self.flags is None:  # the module is loaded (or loading, its future imports done) by now
            self.flags = _future_flags(sys.modules[self.module])
        return self.flags

    def to_store(self) -> dict[Key, types.CodeType]:
        merged = {**self.stored, **self.compiled}
        return merged if len(merged) <= MAX_ENTRIES else {**self.used, **self.compiled}


def _with_number(code: types.CodeType, number: int) -> types.CodeType:
    """`code` with the placeholder constant, wherever it is nested, replaced by `number`.

    A script holds one placeholder (`compile` stores one), so the walk ends at the first: it runs once per
    class at start-up, and rebuilding every nested constant tuple cost ~2 ms of a run."""
    consts = code.co_consts
    for index, const in enumerate(consts):
        if type(const) is int and const == _PLACEHOLDER:
            replaced: object = number
        elif isinstance(const, types.CodeType) and (replaced := _with_number(const, number)) is not const:
            pass
        else:
            continue
        return code.replace(co_consts=(*consts[:index], replaced, *consts[index + 1 :]))
    return code


def _future_flags(module: types.ModuleType) -> int:
    """The compiler flags of the `from __future__` imports of `module` (what its own `compile` calls inherit)."""
    flags = 0
    for value in vars(module).values():
        if type(value).__module__ == "__future__":  # `from __future__ import x` binds x to a _Feature
            flags |= value.compiler_flag
    return flags


def _load(path: Path) -> dict[Key, types.CodeType]:
    try:
        data = path.read_bytes()
        if not data.startswith(MAGIC_NUMBER):  # written by another bytecode version (or not by us at all)
            return {}
        loaded = marshal.loads(data[len(MAGIC_NUMBER) :])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {
        key: code
        for key, code in loaded.items()
        if isinstance(key, tuple) and len(key) == 2 and isinstance(code, types.CodeType)
    }


def _save(path: Path, entries: dict[Key, types.CodeType]) -> None:
    """Add `entries` to what `path` holds now (another process may have added its own since this one read it)
    and write the whole in one step (a temporary file renamed over the old one, so a reader never sees half a
    file); a cache that cannot be written is not an error."""
    import tempfile

    entries = {**_load(path), **entries}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".class-code.")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(MAGIC_NUMBER + marshal.dumps(entries))
        Path(temporary).chmod(0o644)  # readable like the .pyc files beside it (mkstemp makes it private)
        Path(temporary).replace(path)
    except (OSError, ValueError):
        with suppress(OSError):
            Path(temporary).unlink()
