"""Work made once per pytest run and read by every xdist worker of that run: a directory keyed by a hash of the
work's inputs, under a root the run's workers share, made by the first worker to ask while the others wait on a
file lock. Nothing outlives the run's temporary directory, so every run sees the programs as they are now.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

DONE = ".done"
"""Written last in a made directory: a worker that died half-way leaves none, and the next one makes it again."""


def shared_root(factory: pytest.TempPathFactory) -> Path:
    """The run's directory every worker sees: the parent of an xdist worker's base temp (`pytest-N/popen-gwK`),
    or the base temp itself without xdist."""
    base = factory.getbasetemp()
    root = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / "run-once"
    root.mkdir(exist_ok=True)
    return root


def key_of(parts: Iterable[str | bytes]) -> str:
    """A hash of the inputs, each part length-prefixed so that no two lists of parts hash alike."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()[:24]


def made_once(
    factory: pytest.TempPathFactory, name: str, inputs: Iterable[str | bytes], make: Callable[[Path], None]
) -> Path:
    """The directory `make(directory)` filled for these inputs in this run: made here if no worker has made it
    yet, else the one made before (waiting while another worker makes it)."""
    root = shared_root(factory)
    made = root / f"{name}-{key_of([name, *inputs])}"
    with (root / f"{made.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (made / DONE).exists():
            shutil.rmtree(made, ignore_errors=True)
            made.mkdir()
            make(made)
            (made / DONE).touch()
    return made
