"""Where a tool may touch files without asking: inside the session directory or the project worktree.

Anything else needs the `external_directory` permission for `{dir}/*` (reference §12.10). Unlike OpenCode,
which compares paths as written, the check here runs on the *real* path, after `..` and symlinks are
resolved: a link inside the project that points elsewhere is elsewhere, and `a/../../b` is not inside `a`.
The tools that open file content resolve once and open what they checked through `confined_file.py`; the
helpers here serve the rest (glob, bash).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from strata_core.tool.contract import ToolContext

Kind = Literal["file", "directory"]


def absolute(raw: str, base: Path) -> Path:
    """`raw` made absolute against `base`, with `~` expanded and `.`/`..` folded (symlinks untouched)."""
    return Path(os.path.normpath(base / Path(raw).expanduser()))


def real(path: Path) -> Path:
    """The path with every existing symlink resolved; the missing tail (a file about to be created) is kept."""
    return Path(os.path.realpath(path))


def contains(root: Path, target: Path) -> bool:
    return target == root or root in target.parents


def _is_filesystem_root(path: Path) -> bool:
    return path == Path(path.anchor)


def inside_project(target: Path, directory: Path, worktree: Path) -> bool:
    """Whether `target` (really) lies in the session directory or the worktree.

    A non-git project has the filesystem root as its worktree; that would contain everything, so only the
    directory counts then (as in OpenCode).
    """
    target_real = real(target)
    if contains(real(directory), target_real):
        return True
    if _is_filesystem_root(worktree):
        return False
    return contains(real(worktree), target_real)


def directory_pattern(directory: Path) -> str:
    return str(directory / "*")


async def assert_external_directory(
    ctx: ToolContext, target: Path, *, kind: Kind = "file", bypass: bool = False
) -> bool:
    """Ask `external_directory` when `target` is outside the project; returns whether it asked."""
    if bypass or inside_project(target, ctx.directory, ctx.worktree):
        return False
    target_real = real(target)
    parent = target_real if kind == "directory" else target_real.parent
    pattern = directory_pattern(parent)
    await ctx.ask(
        "external_directory",
        [pattern],
        [pattern],
        {"filepath": str(target), "parentDir": str(parent)},
    )
    return True


def relative_to_worktree(worktree: Path, path: Path) -> str:
    """The path as a permission pattern and a title: relative to the worktree, `/`-separated."""
    return os.path.relpath(path, worktree).replace(os.sep, "/")
