"""The one walk of the writable root a contained command costs: its `.env` files and its config entries.

Before a command, the walk finds the secret files to hide and the config files and dirs (`protected.py`'s
names) that already exist anywhere in the project, to bind read-only. After a bash command, the same walk
again shows which config entries are new or changed (`created.py`). It is a directory walk, not `rg --files`:
rg lists neither directories nor symlinks, and `sub/strata.json -> ../grant.json` is as much a self-grant as
the file itself. With `os.scandir` (no `stat` but for the entries it keeps) it is no slower than rg was
(~10 ms for 20,000 files, measured in `benchmarks/sandbox_cost.py`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from attrs import evolve, frozen

from strata_core.sandbox.protected import CONFIG_NAMES, SKIPPED_DIRS, is_secret_name

Signature = tuple[int, int, int, int]
"""What tells an entry apart from what it was: (mode, inode, size, mtime in ns), as `lstat` has it."""


@frozen
class ProjectScan:
    """What a walk of the writable root found."""

    root: Path
    secrets: tuple[Path, ...]
    """Regular files with a secret name (`.env`, `prod.env`...), symlinks left out (their target is what
    would be read, and it is hidden where it lies in the project)."""
    config: dict[Path, Signature]
    """Every entry with a config name, and everything inside a config dir, with its signature."""

    def without(self, paths: Iterable[Path]) -> ProjectScan:
        """This scan as if `paths` (the placeholders a command's layout made) had not been there."""
        left = set(paths)
        return evolve(self, config={path: sig for path, sig in self.config.items() if path not in left})

    @property
    def config_roots(self) -> list[Path]:
        """The outermost config entries (a `strata.json`, a `.opencode/` dir, not what lies inside it)."""
        return [path for path in self.config if not _inside_config(path.parent.relative_to(self.root))]


def _inside_config(relative: Path) -> bool:
    return any(part in CONFIG_NAMES for part in relative.parts)


def _maybe_secret(name: str) -> bool:
    # Every secret name holds ".env": testing that first spares three fnmatch calls per file (half the walk).
    return ".env" in name and is_secret_name(name)


def scan_project(root: Path) -> ProjectScan:
    """Walk `root` (without following symlinks, `.git` dirs skipped) for secret files and config entries."""
    secrets: list[Path] = []
    config: dict[Path, Signature] = {}
    pending: list[tuple[str, bool]] = [(str(root), False)]
    while pending:
        directory, in_config = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # gone, or unreadable: nothing in it can be bound either
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and entry.name in SKIPPED_DIRS:
                continue
            configured = in_config or entry.name in CONFIG_NAMES
            if configured:
                try:
                    found = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                config[Path(entry.path)] = (found.st_mode, found.st_ino, found.st_size, found.st_mtime_ns)
            if is_dir:
                pending.append((entry.path, configured))
            elif _maybe_secret(entry.name) and entry.is_file(follow_symlinks=False):
                secrets.append(Path(entry.path))
    return ProjectScan(root, tuple(secrets), config)
