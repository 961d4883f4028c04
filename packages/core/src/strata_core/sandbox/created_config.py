"""Config a bash command created off its directory chain: found after the command, asked about, kept or moved.

Bind mounts protect only what exists, so a command inside the sandbox can still create `sub/strata.json` or
`a/b/.opencode/agent/x.md` (the chain from its directory to the root has placeholders; nothing else can),
and a later run started in `sub/` would obey it. After each bash command in workspace-write mode the project
is walked again (`project_scan.py`) and every config entry that is new or changed since the walk before it
asks the `protected_path` permission, as a write by the write tool would (a headless run denies it). Allowed,
it stays; denied, it is moved out of the project into `<state>/quarantine/<session>/<call>/` (nothing is
deleted) and the model is told what was moved where, in `prompts/tools/bash_moved_config.txt`. Existing
entries are read-only, but a command can still rename a dir above one (`mv sub sub2`), carrying the user's
config (a `deny` rule, say) away from the dir it was for: those are put back where they were.

This is for bash alone: a local MCP server runs as long as the session, so there is no "after" to look at;
its layout still binds every config entry that exists read-only and hides the `.env` files.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import anyio
import anyio.to_thread
from attrs import frozen

from strata_core.logging import get_logger
from strata_core.permission.rules import PermissionRefusedError, RejectedError
from strata_core.prompt.texts import read_prompt
from strata_core.sandbox import placeholders
from strata_core.sandbox.project_scan import ProjectScan, scan_project
from strata_core.sandbox.protected import CONFIG_NAMES
from strata_core.tool.contract import ToolContext
from strata_core.tool.descriptions import render
from strata_core.tool.support.content_guard import PROTECTED_PATH

log = get_logger(__name__)


@frozen
class Moved:
    """A config entry taken out of the project, and where it is now."""

    path: Path
    to: Path | None
    """None: it could not be moved (`problem` says why), and is still there."""
    problem: str = ""


@frozen
class ConfigChanges:
    """What a command did to config entries, as two walks of the project show it."""

    created: list[Path]
    """New or changed entries, each given once: a new config dir (or a new dir in one) as a whole."""
    displaced: dict[Path, Path]
    """Entries that existed (read-only, so unchanged) and that the command carried along by renaming a
    dir above them (`mv sub sub2`): where each was, and where it is now."""
    gone: list[Path]
    """Entries that existed and are nowhere in the project now (their dir renamed out of it)."""


def config_changes(before: ProjectScan) -> ConfigChanges:
    """Walk the project again and compare with `before`. Blocking: run it in a thread."""
    after = scan_project(before.root)
    # A parallel command's placeholders (empty files Strata made, perhaps gone again): not this command's.
    ignored = {path for path in {*before.config, *after.config} if placeholders.ours(path)}
    now_at = {after.config[path]: path for path in after.config_roots if path not in before.config}
    displaced: dict[Path, Path] = {}
    gone: list[Path] = []
    for original in before.config_roots:
        if after.config.get(original) == before.config[original] or original in ignored:
            continue
        found = now_at.get(before.config[original])  # unchanged (it was read-only): the same signature
        if found is None:
            gone.append(original)
        else:
            displaced[original] = found
    carried = set(displaced.values())
    changed = [
        path
        for path, signature in after.config.items()
        if before.config.get(path) != signature
        and path not in ignored
        and not _still_a_dir(before, after, path)
        and not any(path == moved or moved in path.parents for moved in carried)
    ]
    created: list[Path] = []
    for path in sorted(changed):
        outermost = _outermost_new(before, path)
        if not any(outermost == kept or kept in outermost.parents for kept in created):
            created.append(outermost)
    return ConfigChanges(created, displaced, gone)


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
    `asking` (the call was aborted or failed: no one is there to answer), move them all. Then put back where
    they were the entries it carried off by renaming a dir. Returns what the model is told, empty when
    nothing was moved."""
    if before is None:
        return ""
    changes = await anyio.to_thread.run_sync(config_changes, before)
    moved: list[Moved] = []
    for path in changes.created:
        relative = path.relative_to(before.root).as_posix()
        try:
            if not asking:
                raise RejectedError()
            await ctx.ask(PROTECTED_PATH, [relative], [relative], {"filepath": str(path), "created_by": "bash"})
        except PermissionRefusedError:
            moved.append(await anyio.to_thread.run_sync(_move, path, before.root, quarantine))
    told = []
    if moved:
        listed = "\n".join(f"- {entry.path} -> {entry.to or f'NOT MOVED: {entry.problem}'}" for entry in moved)
        told.append(
            render(read_prompt("tools/bash_moved_config.txt"), {"moved": listed, "quarantine": str(quarantine)})
        )
    restored = await anyio.to_thread.run_sync(_restore, changes)
    if restored:
        told.append(render(read_prompt("tools/bash_restored_config.txt"), {"restored": "\n".join(restored)}))
    return "\n\n".join(told)


def _restore(changes: ConfigChanges) -> list[str]:
    """Put each displaced entry back where it was (when that place is free); a line for each, and for each
    entry gone, for the model."""
    lines: list[str] = []
    for original, now in changes.displaced.items():
        if os.path.lexists(original):
            lines.append(f"- {original}: left at {now} (something else is at {original} now)")
            continue
        try:
            original.parent.mkdir(parents=True, exist_ok=True)
            now.rename(original)
        except OSError as error:
            log.warning("config not put back", path=str(original), at=str(now), error=str(error))
            lines.append(f"- {original}: left at {now} (it could not be put back: {error.strerror})")
            continue
        lines.append(f"- {original}: put back (the command had moved it to {now})")
    lines += [f"- {original}: no longer in the project" for original in changes.gone]
    return lines


def _move(path: Path, root: Path, quarantine: Path) -> Moved:
    """Move `path` to the same relative place under `quarantine` (a copy then a removal across file systems),
    keeping a symlink a symlink; never over something already there. A move that fails is logged and said:
    the entry is still in the project, and the user must know."""
    target = quarantine / path.relative_to(root)
    suffix = 1
    while target.exists() or target.is_symlink():
        target = target.with_name(f"{path.name}.{suffix}")
        suffix += 1
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)
    except OSError as error:
        log.warning("config not moved to quarantine", path=str(path), error=str(error))
        return Moved(path, None, error.strerror or str(error))
    return Moved(path, target)
