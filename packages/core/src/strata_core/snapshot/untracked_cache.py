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
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from attrs import define, field, frozen

from strata_core.snapshot.file_names import split_nul

Signature = tuple[int, int, int, int, int, int]
"""Device, inode, mode, size, mtime and ctime (ns) of a path."""

CLOCK_FILE = "strata-clock"


def signature(path: str) -> Signature | None:
    """The path's stat data, or None when it does not exist (its creation shows as a change). A symbolic
    link is followed (an excludes file is often a link into a dotfiles directory, and git reads the target),
    so the target's changes show; a link to nothing has its own stat data."""
    try:
        stat = os.stat(path)  # noqa: PTH116 - str paths, no Path object per call on this hot path
    except OSError:
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


class Git(Protocol):
    """Runs a git command in the snapshot's git directory and worktree (`GitSnapshot._run`)."""

    async def __call__(self, *args: str, git_dir_only: bool = False) -> bytes: ...


@frozen
class _Walk:
    """What git ignored at a full scan, what was walked, and the stat data of the rules that decided it."""

    ignored: set[str]
    directories: frozenset[str]
    rules: dict[str, Signature | None]


@define
class UntrackedCache:
    """The stat data that decides whether a snapshot may skip git's walk for untracked files."""

    worktree: Path
    scope: str
    env: Mapping[str, str]
    _recorded: dict[str, Signature | None] | None = field(default=None, init=False)
    _full_scans: int = field(default=0, init=False)
    _walk: _Walk | None = field(default=None, init=False)
    _config: dict[str, Signature | None] | None = field(default=None, init=False)
    """Git's config and excludes files outside the worktree, with their stat data when they were found."""

    def unchanged(self) -> bool:
        """Whether every recorded path has the stat data it had after the last full scan."""
        recorded = self._recorded
        if recorded is None:
            return False
        return all(signature(path) == before for path, before in recorded.items())

    def forget(self) -> None:
        self._recorded = None

    def record_from_the_first_scan(self) -> None:
        """Another snapshot is sure to follow (the runtime's warm-up, off the turn's path, comes first): the
        first full scan records too, so the turn's own first snapshot can skip the walk."""
        self._full_scans = max(self._full_scans, 1)

    async def record(self, clock: tuple[int, int], git: Git, left_large: list[str], exclude: Path | None) -> None:
        """After a full scan that began at `clock`: keep the stat data of every directory git walked, every
        ignore rule, and the files left out for their size (paths relative to the worktree).

        The first full scan keeps nothing: recording costs git processes of its own (what git ignores, and
        its config files), and a `strata run` that answers in text takes one snapshot only.
        """
        self._full_scans += 1
        if self._full_scans == 1:
            return
        root = self.worktree / self.scope if self.scope != "." else self.worktree
        config = await self._config_files(git, exclude)
        walked = self._walk_again(root)
        if walked is not None and self._walk is not None:
            ignored, (directories, rules) = self._walk.ignored, walked
        else:
            ignored = await self._ignored(git)
            directories, rules = walked_directories(root, ignored)
        parents = [str(parent) for parent in root.parents if parent.is_relative_to(self.worktree)]
        parent_rules = [str(Path(parent) / ".gitignore") for parent in parents]
        large = [str(self.worktree / name) for name in left_large]
        recorded = self._keep(clock, [*directories, *parents, *rules, *parent_rules, *large], config)
        all_rules = [*rules, *parent_rules, *config]
        self._recorded = recorded
        self._walk = (
            _Walk(ignored, frozenset(directories), {path: recorded[path] for path in all_rules})
            if recorded is not None
            else None
        )

    def _walk_again(self, root: Path) -> tuple[list[str], list[str]] | None:
        """The walk with the directories git ignored last time, when that answer still holds: no rule
        changed and no directory is new (a new one may be ignored); else None, and git is asked again."""
        walk = self._walk
        if walk is None or any(signature(path) != seen for path, seen in walk.rules.items()):
            return None
        directories, rules = walked_directories(root, walk.ignored)
        if not walk.directories.issuperset(directories) or not walk.rules.keys() >= set(rules):
            return None
        return directories, rules

    async def _ignored(self, git: Git) -> set[str]:
        """The directories git ignores (absolute paths)."""
        listed = await git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--", self.scope
        )
        return {str(self.worktree / name.rstrip("/")) for name in split_nul(listed) if name.endswith("/")}

    async def _config_files(self, git: Git, exclude: Path | None) -> list[str]:
        """The files outside the worktree that decide what git ignores (`_find_config_files`), found again
        only when one of them changed since they were last found."""
        if self._config is not None and all(signature(path) == seen for path, seen in self._config.items()):
            return list(self._config)
        files = await self._find_config_files(git, exclude)
        self._config = {path: signature(path) for path in files}
        return files

    async def _find_config_files(self, git: Git, exclude: Path | None) -> list[str]:
        """The repository's `info/exclude`, git's config files (as git lists them, includes followed) and the
        excludes file they name, or its default."""
        home, xdg = self.env.get("HOME"), self.env.get("XDG_CONFIG_HOME")
        config_home = Path(xdg) if xdg else Path(home) / ".config" if home else None
        files = ["/etc/gitconfig"]
        if home:
            files.append(str(Path(home) / ".gitconfig"))
        if config_home is not None:
            files += [str(config_home / "git" / "config"), str(config_home / "git" / "ignore")]
        if exclude is not None:
            files.append(str(exclude))
        listed = await git("config", "--list", "--show-origin", "--includes", "-z", git_dir_only=True)
        items = split_nul(listed)
        for origin, entry in zip(items[::2], items[1::2], strict=False):
            key, _, value = entry.partition("\n")
            source = Path(origin.removeprefix("file:")) if origin.startswith("file:") else None
            if source is not None:
                files.append(str(source))
            if key == "core.excludesfile" or (key.startswith("include") and key.endswith(".path")):
                path = Path(home + value[1:] if home and value.startswith("~/") else value)
                base = source.parent if source is not None and key != "core.excludesfile" else self.worktree
                files.append(str(path if path.is_absolute() else base / path))
        return files

    @staticmethod
    def _keep(
        clock: tuple[int, int], worktree_paths: list[str], other_paths: list[str]
    ) -> dict[str, Signature | None] | None:
        """The stat data of the paths, or None when one is racy against `clock` (see the module docstring).
        `worktree_paths` must be on the clock's file system; `other_paths` (git's config and excludes files)
        may be elsewhere, and are compared with the clock's time only."""
        device, now = clock
        kept: dict[str, Signature | None] = {}
        for path, same_device in [*((p, True) for p in worktree_paths), *((p, False) for p in other_paths)]:
            stat = signature(path)
            if stat is not None and ((same_device and stat[0] != device) or stat[4] >= now or stat[5] >= now):
                return None
            kept[path] = stat
        return kept
