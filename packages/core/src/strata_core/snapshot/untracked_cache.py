"""Whether a new untracked file can have appeared since the last full scan, from stat data alone.

Git finds the files a snapshot must add by walking every directory it does not ignore (`ls-files
--others`): on 10,000 files that walk is a quarter of an unchanged snapshot. A file can only become one to
add when a directory's entries change (created, removed or renamed in it: its mtime and ctime move), when
the rules that ignore files change (a `.gitignore`, the repository's `info/exclude`, git's global config and
excludes file), or when a file left out for its size shrinks. `UntrackedCache` keeps the stat data of all of
those, taken after a full scan, and answers whether each is still the same: then the walk is skipped and git
checks only the tracked files (`ls-files --modified --deleted`). This is what git's own untracked cache does;
git 2.39 uses it only in `git status`, not for `ls-files`.

Racy timestamps (git's "racy git" problem): a change made in the same timestamp tick as the stat that
recorded an entry leaves the entry's stat data equal. So a clock reading is taken from the same file system,
by touching a file in the snapshot directory, before git's scan; an entry whose mtime or ctime is not older
than that reading, or which is on another file system than the reading, is not trusted, and nothing is
cached (the next snapshot scans in full and records again). ctime cannot be set by a program, so a file put
back with an old mtime (`touch -d`, `cp -p`) still shows.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from attrs import define, field

Signature = tuple[int, int, int, int, int, int]
"""Device, inode, mode, size, mtime and ctime (ns) of a path, from `lstat`."""

CLOCK_FILE = "strata-clock"


def signature(path: str) -> Signature | None:
    """The path's stat data, or None when it does not exist (its creation shows as a change)."""
    try:
        stat = os.lstat(path)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino, stat.st_mode, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def read_clock(gitdir: Path) -> tuple[int, int]:
    """The file system's time now, as (device, ns): the mtime of a file in `gitdir`, touched for this."""
    probe = gitdir / CLOCK_FILE
    probe.touch()  # sets the times of an existing file to now, as a write would
    stat = probe.stat()
    return stat.st_dev, stat.st_mtime_ns


def walked_directories(root: Path, ignored: set[str]) -> tuple[list[str], list[str]]:
    """Every directory under `root` that git walks for untracked files, and the `.gitignore` files in them.

    Directories named `.git` are never walked by git; `ignored` holds the directories git reported as
    ignored (absolute paths). Anything else is walked, nested repositories included: a superset of what git
    reads costs a needless full scan at worst, never a missed file.
    """
    directories: list[str] = []
    rules: list[str] = []
    pending = [str(root)]
    while pending:
        directory = pending.pop()
        directories.append(directory)
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name == ".git":
                        continue
                    if entry.name == ".gitignore":
                        rules.append(entry.path)
                    elif entry.is_dir(follow_symlinks=False) and entry.path not in ignored:
                        pending.append(entry.path)
        except OSError:
            continue  # gone or unreadable: its recorded signature (None or its own) decides next time
    return directories, rules


@define
class UntrackedCache:
    """The stat data that decides whether a snapshot may skip git's walk for untracked files."""

    _recorded: dict[str, Signature | None] | None = field(default=None, init=False)

    def unchanged(self) -> bool:
        """Whether every recorded path has the stat data it had after the last full scan."""
        recorded = self._recorded
        if recorded is None:
            return False
        return all(signature(path) == before for path, before in recorded.items())

    def forget(self) -> None:
        self._recorded = None

    def record(self, clock: tuple[int, int], worktree_paths: Iterable[str], other_paths: Iterable[str]) -> bool:
        """Keep the stat data of the paths when none is racy against `clock` (see the module docstring);
        whether anything was kept. `worktree_paths` must be on the clock's file system; `other_paths` (git's
        config and excludes files) may be elsewhere, and are compared with the clock's time only."""
        device, now = clock
        recorded: dict[str, Signature | None] = {}
        for path, same_device in [*((p, True) for p in worktree_paths), *((p, False) for p in other_paths)]:
            stat = signature(path)
            if stat is not None and ((same_device and stat[0] != device) or stat[4] >= now or stat[5] >= now):
                self._recorded = None
                return False
            recorded[path] = stat
        self._recorded = recorded
        return True
