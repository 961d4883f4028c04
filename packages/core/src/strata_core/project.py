"""The project a session works in: its directory, its worktree (the git top level), vcs and platform."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Literal, Protocol, TypeAlias

import anyio.to_thread
from attrs import define, field, frozen

Platform: TypeAlias = Literal["linux", "darwin", "win32"]
GLOBAL_PROJECT_ID = "global"


@frozen
class ProjectInfo:
    """Where a session runs: everything that depends on the working directory starts from here."""

    directory: Path
    """The directory Strata was started in (absolute, symlinks resolved)."""
    worktree: Path
    """The git top level containing `directory`, or `/` outside a repository (as OpenCode does)."""
    vcs: Literal["git"] | None
    platform: Platform
    id: str
    """Stable project id, as OpenCode's: the repository's root commit, so two clones of one repository (on two
    hosts sharing a store) are one project; the sha1 of the worktree path in a repository with no commit yet;
    `global` outside a repository."""
    path_id: str | None = None
    """The worktree path's sha1, the id Strata gave a repository before it used the root commit (sessions stored
    under it are moved to `id` when a runtime opens)."""


class Project(Protocol):
    """The project service: answers where the session's directory and worktree are."""

    async def info(self) -> ProjectInfo: ...


def current_platform(name: str = sys.platform) -> Platform:
    """`sys.platform` folded into the three names OpenCode's prompts and rules know."""
    if name == "darwin":
        return "darwin"
    if name in ("win32", "cygwin"):
        return "win32"
    return "linux"


def find_git_root(directory: Path) -> Path | None:
    """The nearest directory at or above `directory` holding `.git` (a dir, or a file for worktrees/submodules)."""
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def discover_project(directory: Path, id_cache: Path | None = None) -> ProjectInfo:
    """Blocking discovery of the project around `directory`; a repository's root commit is kept in `id_cache`
    (a directory of Strata's own) once found, so only the first start in a repository walks its history."""
    directory = directory.expanduser().resolve()
    root = find_git_root(directory)
    if root is None:
        return ProjectInfo(directory, Path("/"), None, current_platform(), GLOBAL_PROJECT_ID)
    path_id = hashlib.sha1(str(root).encode(), usedforsecurity=False).hexdigest()
    kept = id_cache / path_id if id_cache is not None else None
    project_id = _commit_in(root / ".git" / "opencode") or _commit_in(kept) or _found_root_commit(root, kept)
    return ProjectInfo(directory, root, "git", current_platform(), project_id or path_id, path_id)


_COMMIT = re.compile(r"[0-9a-f]{40}")


def _commit_in(file: Path | None) -> str | None:
    """The commit id a cache file holds (OpenCode's `.git/opencode`, or Strata's own), if it holds one."""
    if file is None:
        return None
    try:
        text = file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if _COMMIT.fullmatch(text) else None


def _found_root_commit(worktree: Path, keep_in: Path | None) -> str | None:
    """`root_commit`, written to `keep_in` when found (best effort: an unwritable cache only costs the walk)."""
    found = root_commit(worktree)
    if found is not None and keep_in is not None:
        try:
            keep_in.parent.mkdir(parents=True, exist_ok=True)
            partial = keep_in.with_name(f"{keep_in.name}.{os.getpid()}.tmp")
            partial.write_text(found, encoding="utf-8")
            partial.replace(keep_in)
        except OSError:
            pass
    return found


def root_commit(worktree: Path) -> str | None:
    """The repository's root commit (the smallest, when it has several), as OpenCode's project id, from git
    (a walk of the whole history, which is why it is cached). None without a commit, or without git."""
    try:
        done = subprocess.run(
            ["git", "rev-list", "--max-parents=0", "--all"],
            cwd=worktree,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    roots = sorted(line for line in done.stdout.split() if _COMMIT.fullmatch(line)) if done.returncode == 0 else []
    return roots[0] if roots else None


@define
class ProjectService:
    """Default `Project`: discovers once, on first use, and caches the answer."""

    directory: Path
    id_cache: Path | None = None
    """Where repositories' root commits are kept once found (`StrataPaths.project_ids`); None: not kept."""
    _cached: ProjectInfo | None = field(default=None, init=False, repr=False)

    async def info(self) -> ProjectInfo:
        if self._cached is None:
            self._cached = await anyio.to_thread.run_sync(discover_project, self.directory, self.id_cache)
        return self._cached
