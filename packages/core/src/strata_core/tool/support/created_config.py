"""Protected entries a bash command created: found after the command, asked about, kept or moved.

Bind mounts protect only what exists, and nothing is made on the host for what does not (it would show in the
user's tree: `sandbox/protected.py`), so a command inside the sandbox can create `strata.json`, `sub/strata.json`,
`a/b/.opencode/agent/x.md`, a nested repository (`git init sub`, a `sub/.git` file, a bare one under any name:
`git init --bare vendor/x.git`) or the hooks dir a repository lacked, and a later run, or the user's own
`git status` there, would obey it. After each bash command in workspace-write mode the project is walked again
(`sandbox/project_scan.py`) and every protected entry that is new or changed since the walk before it is looked at:
one of the command's own `protected_paths` (the config names from its directory up to the root, the root's git
entries) is moved out unasked, as it could not be made before; any other asks the `protected_path` permission,
as a write by the write tool would (a headless run denies it). Allowed, it stays; denied, it is moved out of
the project into `<state>/quarantine/<session>/<call>/` (nothing is deleted) and the model is told what was
moved where, in `prompts/tools/bash_moved_config.txt`. Existing entries are read-only, but a command can still
rename a dir above one (`mv sub sub2`), carrying the user's config (a `deny` rule, say) away from the dir it
was for: those are put back where they were. A nested repository renamed so is carried along, not put back
(what it holds is looked at where it is now).

This is for bash alone: a local MCP server runs as long as the session, so there is no "after" to look at;
its layout still binds every protected entry that exists read-only and hides the `.env` files.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import anyio
import anyio.to_thread
from attrs import frozen

from strata_core.logging import get_logger
from strata_core.permission.rules import PermissionRefusedError, RejectedError
from strata_core.sandbox.project_scan import PROTECTED_ROOTS, ProjectScan, Signature, scan_project
from strata_core.sandbox.protected import GIT
from strata_core.texts import read_prompt
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
    now_at = {after.config[path]: path for path in after.config_roots if path not in before.config}
    displaced: dict[Path, Path] = {}
    gone: list[Path] = []
    repositories = set(before.git_dirs)
    for original in before.config_roots:
        if original.name == GIT or original in repositories:
            continue  # a repository renamed along with its dir is carried (`_renamed_repositories`), not put back
        if after.config.get(original) == before.config[original]:
            continue
        found = now_at.get(before.config[original])  # unchanged (it was read-only): the same signature
        if found is None:
            gone.append(original)
        else:
            displaced[original] = found
    carried = set(displaced.values())
    earlier = _earlier_paths(_renamed_repositories(before, after))
    changed = {
        path
        for path, signature in after.config.items()
        if not _unchanged(before.config.get(earlier(path)), signature)
        and not any(path == moved or moved in path.parents for moved in carried)
    }
    created: list[Path] = []
    for path in sorted(changed):
        outermost = _outermost(before.root, path, changed)
        if not any(outermost == kept or kept in outermost.parents for kept in created):
            created.append(outermost)
    return ConfigChanges(created, displaced, gone)


def _renamed_repositories(before: ProjectScan, after: ProjectScan) -> dict[Path, Path]:
    """`.git` entries (and bare repositories) at a new place that are the same (mode and inode) as one
    before: a dir above a nested repository renamed (`mv vendor/lib vendor/lib2`). Where each is now, and
    where it was."""

    def repositories(scan: ProjectScan) -> list[Path]:
        git_dirs = set(scan.git_dirs)
        return [path for path in scan.config_roots if path.name == GIT or path in git_dirs]

    known = {before.config[path][:2]: path for path in repositories(before)}
    return {
        path: known[after.config[path][:2]]
        for path in repositories(after)
        if path not in before.config and after.config[path][:2] in known
    }


def _earlier_paths(renamed: dict[Path, Path]) -> Callable[[Path], Path]:
    """Where a path was before the command, for what a renamed repository carried along."""

    def earlier(path: Path) -> Path:
        for now, was in renamed.items():
            if path == now or now in path.parents:
                return was / path.relative_to(now)
        return path

    return earlier


def _unchanged(old: Signature | None, new: Signature) -> bool:
    """The same entry: an equal signature, or the same dir (mode and inode; what changed inside it is looked
    at on its own)."""
    return old == new or (old is not None and stat.S_ISDIR(old[0]) and stat.S_ISDIR(new[0]) and old[1] == new[1])


def _outermost(root: Path, path: Path, changed: set[Path]) -> Path:
    """The outermost new or changed entry from `path`'s protected root (or, in a bare repository, which has
    no protected name, from the top) down to `path`: moved whole."""
    parts = path.relative_to(root).parts
    start = next((index for index, part in enumerate(parts) if part in PROTECTED_ROOTS), 0)
    for depth in range(start, len(parts)):
        candidate = root.joinpath(*parts[: depth + 1])
        if candidate in changed:
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
            if not asking or path in before.unmade:  # on the chain: it could never be kept
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
