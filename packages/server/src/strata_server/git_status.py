"""The project's changed files from git (`GET /file/status`), in OpenCode's `File` shape: each file changed
since the last commit, with the lines added and removed and whether it was added, deleted or modified.

Tracked changes (staged or not) come from `git diff HEAD` (numbers from `--numstat`, the kind from
`--name-status`); untracked files that are not ignored are `added`, every line counted. A repository without
a commit yet is compared with the empty tree, so everything in it is added. Paths are relative to the
project directory, as OpenCode gives them; outside git the answer is empty.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import anyio
import anyio.to_thread
from attrs import frozen

FileStatus = Literal["added", "deleted", "modified"]

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's id of the empty tree: what a repository without commits is compared with."""
MAX_COUNTED_BYTES = 16 * 1024 * 1024
"""An untracked file larger than this is listed with 0 lines added rather than read whole."""


@frozen
class ChangedFile:
    path: str
    added: int
    removed: int
    status: FileStatus

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "added": self.added, "removed": self.removed, "status": self.status}


async def changed_files(worktree: Path, directory: Path) -> list[ChangedFile]:
    """The files changed in the git work tree at `worktree`, their paths relative to `directory`."""
    base = EMPTY_TREE if await _git(worktree, "rev-parse", "--verify", "-q", "HEAD") is None else "HEAD"
    numstat = await _git(worktree, "diff", "--numstat", "--no-renames", "-z", base)
    kinds = await _git(worktree, "diff", "--name-status", "--no-renames", "-z", base)
    untracked = await _git(worktree, "ls-files", "--others", "--exclude-standard", "-z", "--full-name")
    if numstat is None or kinds is None or untracked is None:
        return []
    found = tracked_changes(numstat, kinds)
    for name in _fields(untracked):
        found[name] = ChangedFile(name, await anyio.to_thread.run_sync(_line_count, worktree / name), 0, "added")
    return [
        ChangedFile(_relative(worktree / name, directory), c.added, c.removed, c.status)
        for name, c in sorted(found.items())
    ]


def _relative(path: Path, directory: Path) -> str:
    return os.path.relpath(path, directory)  # pure path arithmetic: nothing on disk is read


def tracked_changes(numstat: str, name_status: str) -> dict[str, ChangedFile]:
    """`git diff --numstat -z` and `--name-status -z` read together, by path (relative to the work tree)."""
    kinds: dict[str, FileStatus] = {}
    fields = _fields(name_status)
    for letter, name in zip(fields[::2], fields[1::2], strict=False):
        kinds[name] = "added" if letter == "A" else "deleted" if letter == "D" else "modified"
    found: dict[str, ChangedFile] = {}
    for record in _fields(numstat):
        added, removed, name = record.split("\t", 2)
        # A binary file's counts are `-`: no lines to count.
        found[name] = ChangedFile(name, _count(added), _count(removed), kinds.get(name, "modified"))
    return found


def _fields(output: str) -> list[str]:
    return [field for field in output.split("\0") if field]


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _line_count(path: Path) -> int:
    """Lines as git counts them for a new file: newlines, plus a last line without one."""
    try:
        if path.stat().st_size > MAX_COUNTED_BYTES:
            return 0
        data = path.read_bytes()
    except OSError:
        return 0
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


async def _git(worktree: Path, *args: str) -> str | None:
    try:
        done = await anyio.run_process(["git", "-c", "core.quotepath=false", "-C", str(worktree), *args], check=False)
    except OSError:
        return None
    return done.stdout.decode(errors="replace") if done.returncode == 0 else None
