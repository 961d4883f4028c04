"""The one walk of the writable root a contained command costs: its `.env` files and its protected entries.

Before a command, the walk finds the secret files to hide and the protected entries (`protected.py`'s config
names and git's) that already exist anywhere in the project, to bind read-only. After a bash command, the
same walk again shows which are new or changed (`tool/support/created_config.py`). It is a directory walk, not
`rg --files`: rg lists neither directories nor symlinks, and `sub/strata.json -> ../grant.json` is as much a
self-grant as the file itself. A `.git` dir is not walked: only its `GIT_NAMES` are looked at (a few `lstat`
calls and the hooks dir per repository); so for a dir git itself takes for a git dir (a bare repository,
under any name: `protected.GIT_DIR_MARKS`). With `os.scandir` (no `stat` but for the entries it keeps) it is no
slower than rg was (~10 ms for 20,000 files, measured in `benchmarks/sandbox_cost.py`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from attrs import frozen

from strata_core.sandbox.protected import CONFIG_NAMES, GIT, GIT_NAMES, is_secret_name, makes_git_dir

Signature = tuple[int, int, int, int]
"""What tells an entry apart from what it was: (mode, inode, size, mtime in ns), as `lstat` has it."""
PROTECTED_ROOTS = frozenset({*CONFIG_NAMES, GIT})
GIT_SUBDIRS = ("modules", "worktrees")
"""Where a repository keeps git dirs of its own (its submodules', its linked worktrees'), each with config."""


@frozen
class ProjectScan:
    """What a walk of the writable root found."""

    root: Path
    secrets: tuple[Path, ...]
    """Regular files with a secret name (`.env`, `prod.env`...), symlinks left out (their target is what
    would be read, and it is hidden where it lies in the project)."""
    config: dict[Path, Signature]
    """Every protected entry with its signature: each entry with a config name and everything inside a config
    dir; each `.git` (dir, file or symlink) and, in each git dir, its `GIT_NAMES` (the hooks dir's content
    too)."""
    config_roots: tuple[Path, ...] = ()
    """The outermost protected entries (a `strata.json`, a `.opencode/` dir, a `.git`, not what lies inside
    them)."""
    git_dirs: tuple[Path, ...] = ()
    """Every git dir: each `.git` dir, the submodules' and linked worktrees' git dirs inside one, and each
    bare repository (a root of its own, under any name)."""
    unmade: frozenset[Path] = frozenset()
    """The command's `protected_paths` that did not exist at the walk: made by the command, they are moved
    out unasked (`tool/support/created_config.py`)."""

    @property
    def read_only(self) -> list[Path]:
        """What a command's layout binds read-only: each outermost entry but a git dir, and every git dir's
        `GIT_NAMES` (git must write the rest of it: the index, objects, refs)."""
        git_dirs = set(self.git_dirs)
        found = [path for path in self.config_roots if not (path in git_dirs and stat.S_ISDIR(self.config[path][0]))]
        found += [path / name for path in self.git_dirs for name in GIT_NAMES if path / name in self.config]
        return found


def _maybe_secret(name: str) -> bool:
    # Every secret name holds ".env": testing that first spares three fnmatch calls per file (half the walk).
    return ".env" in name and is_secret_name(name)


def _signature(path: str) -> Signature | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_mode, found.st_ino, found.st_size, found.st_mtime_ns)


def _is_git_dir(entries: list[os.DirEntry[str]]) -> bool:
    """Whether a dir holding `entries` is one git takes for a git dir (only named HEAD is looked at first)."""
    if not any(entry.name == "HEAD" for entry in entries):
        return False
    return makes_git_dir({entry.name for entry in entries})


def _record_git_dir(git: str, config: dict[Path, Signature], git_dirs: list[Path]) -> None:
    """A git dir's `GIT_NAMES` (everything in its hooks dir too), and so for the git dirs it holds."""
    git_dirs.append(Path(git))
    for kind in GIT_SUBDIRS:
        try:
            inner = [entry.path for entry in os.scandir(f"{git}/{kind}") if entry.is_dir(follow_symlinks=False)]
        except OSError:
            continue  # none: the usual case
        for path in inner:
            signature = _signature(path)
            if signature is not None:
                config[Path(path)] = signature
                _record_git_dir(path, config, git_dirs)
    pending = [f"{git}/{name}" for name in GIT_NAMES]
    while pending:
        path = pending.pop()
        signature = _signature(path)
        if signature is None:
            continue
        config[Path(path)] = signature
        if stat.S_ISDIR(signature[0]):
            try:
                pending.extend(entry.path for entry in os.scandir(path))
            except OSError:
                continue


def scan_project(root: Path) -> ProjectScan:
    """Walk `root` (without following symlinks, into no `.git` dir) for secret files and protected entries."""
    secrets: list[Path] = []
    config: dict[Path, Signature] = {}
    roots: list[Path] = []
    git_dirs: list[Path] = []
    pending: list[tuple[str, bool]] = [(str(root), False)]
    while pending:
        directory, in_config = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue  # gone, or unreadable: nothing in it can be bound either
        if not in_config and directory != str(root) and _is_git_dir(entries):
            signature = _signature(directory)  # a bare repository: protected as a `.git` dir, not walked
            if signature is not None:
                config[Path(directory)] = signature
                roots.append(Path(directory))
                _record_git_dir(directory, config, git_dirs)
            continue
        for entry in entries:
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.name == GIT:
                signature = _signature(entry.path)
                if signature is not None:
                    config[Path(entry.path)] = signature
                    if not in_config:
                        roots.append(Path(entry.path))
                    if stat.S_ISDIR(signature[0]):
                        _record_git_dir(entry.path, config, git_dirs)
                continue
            configured = in_config or entry.name in CONFIG_NAMES
            if configured:
                try:
                    found = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                config[Path(entry.path)] = (found.st_mode, found.st_ino, found.st_size, found.st_mtime_ns)
                if not in_config:
                    roots.append(Path(entry.path))
            if is_dir:
                pending.append((entry.path, configured))
            elif _maybe_secret(entry.name) and entry.is_file(follow_symlinks=False):
                secrets.append(Path(entry.path))
    return ProjectScan(root, tuple(secrets), config, tuple(roots), tuple(git_dirs))
