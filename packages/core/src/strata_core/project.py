"""The project a session works in: its directory, its worktree (the git top level), vcs and platform."""

from __future__ import annotations

import hashlib
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
    """Stable project id: the sha1 of the worktree path, or `global` outside a repository."""


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


def discover_project(directory: Path) -> ProjectInfo:
    """Blocking discovery of the project around `directory`."""
    directory = directory.expanduser().resolve()
    root = find_git_root(directory)
    if root is None:
        return ProjectInfo(directory, Path("/"), None, current_platform(), GLOBAL_PROJECT_ID)
    project_id = hashlib.sha1(str(root).encode(), usedforsecurity=False).hexdigest()
    return ProjectInfo(directory, root, "git", current_platform(), project_id)


@define
class ProjectService:
    """Default `Project`: discovers once, on first use, and caches the answer."""

    directory: Path
    _cached: ProjectInfo | None = field(default=None, init=False, repr=False)

    async def info(self) -> ProjectInfo:
        if self._cached is None:
            self._cached = await anyio.to_thread.run_sync(discover_project, self.directory)
        return self._cached
