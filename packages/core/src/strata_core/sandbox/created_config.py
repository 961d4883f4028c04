"""Config a bash command created off its directory chain: found after the command, asked about, kept or moved.

Bind mounts protect only what exists, so a command inside the sandbox can still create `sub/strata.json` or
`a/b/.opencode/agent/x.md` (the chain from its directory to the root has placeholders; nothing else can),
and a later run started in `sub/` would obey it. After each bash command in workspace-write mode the project
is walked again (`project_scan.py`) and every config entry that is new or changed since the walk before it
asks the `protected_path` permission, as a write by the write tool would (a headless run denies it). Allowed,
it stays; denied, it is moved out of the project into `<state>/quarantine/<session>/<call>/` (nothing is
deleted) and the model is told what was moved where, in `prompts/tools/bash_moved_config.txt`.

This is for bash alone: a local MCP server runs as long as the session, so there is no "after" to look at;
its layout still binds every config entry that exists read-only and hides the `.env` files.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import anyio
import anyio.to_thread
from attrs import frozen

from strata_core.permission.rules import PermissionError_, RejectedError
from strata_core.prompt.texts import read_prompt
from strata_core.sandbox import placeholders
from strata_core.sandbox.project_scan import ProjectScan, scan_project
from strata_core.sandbox.protected import CONFIG_NAMES
from strata_core.tool.contract import ToolContext
from strata_core.tool.descriptions import render
from strata_core.tool.support.content_guard import PROTECTED_PATH


@frozen
class Moved:
    """A config entry taken out of the project, and where it is now."""

    path: Path
    to: Path


def created_config(before: ProjectScan) -> list[Path]:
    """The config entries new or changed since `before`, each given once: a new config dir (or a new dir in
    one) as a whole, not everything in it. Blocking: run it in a thread."""
    after = scan_project(before.root)
    ignored = placeholders.in_use()  # a parallel command's placeholders, empty and read-only: not the command's
    changed = [
        path
        for path, signature in after.config.items()
        if before.config.get(path) != signature and path not in ignored and not _still_a_dir(before, after, path)
    ]
    found: list[Path] = []
    for path in sorted(changed):
        outermost = _outermost_new(before, path)
        if not any(outermost == kept or kept in outermost.parents for kept in found):
            found.append(outermost)
    return found


def _still_a_dir(before: ProjectScan, after: ProjectScan, path: Path) -> bool:
    """A dir that was one before too: what changed is inside it, and that is looked at on its own."""
    old = before.config.get(path)
    return old is not None and stat.S_ISDIR(old[0]) and stat.S_ISDIR(after.config[path][0])


def _outermost_new(before: ProjectScan, path: Path) -> Path:
    """The outermost entry from `path`'s config root down to `path` that did not exist before: moved whole."""
    parts = path.relative_to(before.root).parts
    start = next(index for index, part in enumerate(parts) if part in CONFIG_NAMES)
    for depth in range(start, len(parts)):
        candidate = before.root.joinpath(*parts[: depth + 1])
        if candidate not in before.config:
            return candidate
    return path


async def review_created_config(
    ctx: ToolContext, before: ProjectScan | None, quarantine: Path, *, asking: bool = True
) -> str:
    """After a command laid out from `before` (None: not in workspace-write, nothing to look at): ask
    `protected_path` for each config entry it created, and move the refused ones to `quarantine`; not
    `asking` (the call was aborted or failed: no one is there to answer), move them all. Returns what the
    model is told, empty when everything stayed."""
    if before is None:
        return ""
    created = await anyio.to_thread.run_sync(created_config, before)
    moved: list[Moved] = []
    for path in created:
        relative = path.relative_to(before.root).as_posix()
        try:
            if not asking:
                raise RejectedError()
            await ctx.ask(PROTECTED_PATH, [relative], [relative], {"filepath": str(path), "created_by": "bash"})
        except PermissionError_:
            to = await anyio.to_thread.run_sync(_move, path, before.root, quarantine)
            moved.append(Moved(path, to))
    if not moved:
        return ""
    listed = "\n".join(f"- {entry.path} -> {entry.to}" for entry in moved)
    return render(read_prompt("tools/bash_moved_config.txt"), {"moved": listed, "quarantine": str(quarantine)})


def _move(path: Path, root: Path, quarantine: Path) -> Path:
    """Move `path` to the same relative place under `quarantine` (a copy then a removal across file systems),
    keeping a symlink a symlink; never over something already there."""
    target = quarantine / path.relative_to(root)
    suffix = 1
    while target.exists() or target.is_symlink():
        target = target.with_name(f"{path.name}.{suffix}")
        suffix += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(path, target)
    return target
