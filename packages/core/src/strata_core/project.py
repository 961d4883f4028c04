"""The project a session works in: its directory, its worktree (the git top level), vcs and platform."""

from __future__ import annotations

import hashlib
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


def discover_project(directory: Path) -> ProjectInfo:
    """Blocking discovery of the project around `directory`."""
    directory = directory.expanduser().resolve()
    root = find_git_root(directory)
    if root is None:
        return ProjectInfo(directory, Path("/"), None, current_platform(), GLOBAL_PROJECT_ID)
    path_id = hashlib.sha1(str(root).encode(), usedforsecurity=False).hexdigest()
    project_id = root_commit(root) or path_id
    return ProjectInfo(directory, root, "git", current_platform(), project_id, path_id)


_COMMIT = re.compile(r"[0-9a-f]{40}")


def root_commit(worktree: Path) -> str | None:
    """The repository's root commit (the smallest, when it has several), as OpenCode's project id; first from
    OpenCode's cache of it (`.git/opencode`), else from git. None without a commit, or without git."""
    cached = worktree / ".git" / "opencode"
    try:
        text = cached.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if _COMMIT.fullmatch(text):
        return text
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
    _cached: ProjectInfo | None = field(default=None, init=False, repr=False)

    async def info(self) -> ProjectInfo:
        if self._cached is None:
            self._cached = await anyio.to_thread.run_sync(discover_project, self.directory)
        return self._cached
