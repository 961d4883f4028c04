"""The `apply_patch` tool: add, delete, update and move files in one patch (offered to GPT-5-style models).

Every file is checked before any is touched: a patch that does not apply changes nothing. One `edit`
permission ask covers all the files, with the combined diff. Sections apply one after another, as in Codex
(whose format this is): a second `*** Update File:` of a file patches what the first one made of it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import anyio
from attrs import define, field, frozen

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.builtin.edit import file_lock
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.support.confined_file import Target, checked, kind_name, patterns
from strata_core.tool.support.content_guard import (
    REDACTED_DIFF,
    ask_to_write,
    check_size,
    is_secret,
    read_current,
    remove,
    write_content,
)
from strata_core.tool.support.file_text import (
    TextFile,
    count_changes,
    encode_text,
    normalize_line_endings,
    split_bom,
    trim_diff,
    unified_diff,
    with_bom,
)
from strata_core.tool.support.paths_guard import relative_to_worktree

if TYPE_CHECKING:
    # The patch parser is imported when a patch arrives (~2.5 ms that every start-up would otherwise pay).
    from strata_core.tool.support.patch import Hunk

VERIFY = "apply_patch verification failed: "
UNCHANGED = "Nothing was changed."


@frozen
class PlannedChange:
    kind: Literal["add", "update", "move", "delete"]
    target: Target
    before: str
    after: str
    bom: bool
    move: Target | None = None

    @property
    def path(self) -> Path:
        return self.target.named

    @property
    def move_path(self) -> Path | None:
        return self.move.named if self.move else None

    @property
    def diff(self) -> str:
        before, after = normalize_line_endings(self.before), normalize_line_endings(self.after)
        return trim_diff(unified_diff(str(self.path), before, after))

    @property
    def final_path(self) -> Path:
        return self.move_path or self.path


@frozen
class _Targets:
    """A hunk's file and, for a move, where it goes: both resolved and checked before anything is read."""

    hunk: Hunk
    file: Target
    move: Target | None


async def _targets(ctx: ToolContext, hunk: Hunk) -> _Targets:
    file = await checked(ctx, hunk.path)
    move = await checked(ctx, hunk.move_path) if hunk.move_path else None
    return _Targets(hunk, file, move)


@define
class _Pending:
    """The files as the sections planned so far leave them, by resolved path (None: the patch removes it).

    Each section is planned against these, so two sections of one file both count (planned against the
    disk, the second would silently undo the first)."""

    texts: dict[Path, TextFile | None] = field(factory=dict)

    async def current(self, ctx: ToolContext, target: Target) -> TextFile | None:
        if target.resolved in self.texts:
            return self.texts[target.resolved]
        return await read_current(ctx, target)

    def record(self, change: PlannedChange) -> None:
        if change.kind == "delete" or change.move is not None:
            self.texts[change.target.resolved] = None
        if change.kind != "delete":
            self.texts[(change.move or change.target).resolved] = TextFile(change.after, change.bom)


@asynccontextmanager
async def _locked(targets: list[_Targets]) -> AsyncIterator[None]:
    """Every file the patch reads or writes locked, as edit and write lock theirs; in one order, so two
    patches naming the same files cannot each hold one the other waits for."""
    paths = sorted({t.resolved for item in targets for t in (item.file, item.move) if t is not None})
    async with AsyncExitStack() as stack:
        for path in paths:
            await stack.enter_async_context(file_lock(path))
        yield


async def _plan_all(ctx: ToolContext, targets: list[_Targets]) -> list[PlannedChange]:
    pending = _Pending()
    changes = []
    for item in targets:
        change = await _plan(ctx, item, pending)
        pending.record(change)
        changes.append(change)
    return changes


async def _plan(ctx: ToolContext, targets: _Targets, pending: _Pending) -> PlannedChange:
    from strata_core.tool.support.patch import PatchError, updated_contents

    hunk, target = targets.hunk, targets.file
    path = target.named
    if hunk.kind == "add":
        text = hunk.contents if not hunk.contents or hunk.contents.endswith("\n") else hunk.contents + "\n"
        added = split_bom(text)
        return PlannedChange("add", target, "", added.text, added.bom)
    current = await pending.current(ctx, target)
    if current is None:
        verb = "update" if hunk.kind == "update" else "delete"
        raise ToolFailure(f"{VERIFY}Failed to read file to {verb}: {path}")
    if hunk.kind == "delete":
        return PlannedChange("delete", target, current.text, "", current.bom)
    try:
        updated = updated_contents(str(path), hunk.chunks, with_bom(current.text, current.bom))
    except PatchError as error:
        raise ToolFailure(f"{VERIFY}Error: {error}") from None
    kind: Literal["move", "update"] = "move" if targets.move else "update"
    return PlannedChange(kind, target, current.text, updated.content, updated.bom, targets.move)


async def _apply(ctx: ToolContext, change: PlannedChange) -> None:
    if change.kind == "delete":
        await anyio.to_thread.run_sync(remove, change.target)
        return
    await write_content(ctx, change.move or change.target, change.after, change.bom)
    if change.move is not None and change.move.resolved != change.target.resolved:
        await anyio.to_thread.run_sync(remove, change.target)


# ------------------------------------------------------------------ can the disk take the whole patch?


def _kind(path: Path) -> str | None:
    """What is at `path` by `lstat`: None when nothing, `symlink`, `directory`, `file`, or another kind."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(mode):
        return "symlink"
    return "file" if stat.S_ISREG(mode) else kind_name(mode)


def _write_obstacle(path: Path, files: set[Path]) -> str | None:
    """Why `path` could not be written now (None: it could). A symlink met on the way is left to the
    confined open, which refuses it: it appeared after the check resolved the path."""
    clash = next((directory for directory in path.parents if directory in files), None)
    if clash is not None:
        return f"the patch also writes {clash} as a file"
    deepest = Path(path.anchor)
    for directory in reversed(path.parents[:-1]):  # outermost first, `/` left out
        kind = _kind(directory)
        if kind is None:
            break
        if kind not in ("directory", "symlink"):
            return f"{directory} is a {kind}, not a directory"
        deepest = directory
    kind = _kind(path) if deepest == path.parent else None
    if kind is None:
        return None if os.access(deepest, os.W_OK) else f"no permission to create files in {deepest}"
    if kind not in ("file", "symlink"):
        return f"it is a {kind}, not a regular file"
    return None if os.access(path, os.W_OK, follow_symlinks=False) else "no permission to write it"


def _removes(change: PlannedChange) -> bool:
    return change.kind == "delete" or (change.move is not None and change.move.resolved != change.target.resolved)


def _ensure_possible(changes: Sequence[PlannedChange]) -> None:
    """Refuse the patch, before anything is written, when the disk as it is would stop a change half-way
    (a parent that is a file, a directory where a file goes, no write permission, too much text)."""
    files = {(c.move or c.target).resolved for c in changes if c.kind != "delete"}
    for change in changes:
        if _removes(change) and not os.access(change.target.resolved.parent, os.W_OK):
            raise ToolFailure(
                f"{VERIFY}cannot remove {change.path}: no permission to change its directory. {UNCHANGED}"
            )
        if change.kind == "delete":
            continue
        written = change.move or change.target
        check_size(written.named, len(encode_text(change.after, change.bom)))
        obstacle = _write_obstacle(written.resolved, files)
        if obstacle is not None:
            raise ToolFailure(f"{VERIFY}cannot write {written.named}: {obstacle}. {UNCHANGED}")


# ------------------------------------------------------------------------------------------ the result


def _file_entry(change: PlannedChange, ctx: ToolContext) -> dict[str, Any]:
    added, removed = count_changes(change.before, change.after)
    entry: dict[str, Any] = {
        "filePath": str(change.path),
        "relativePath": relative_to_worktree(ctx.worktree, change.final_path),
        "type": change.kind,
        "patch": REDACTED_DIFF if _secret(ctx, change) else change.diff,
        "additions": added,
        "deletions": removed,
    }
    if change.move_path:
        entry["movePath"] = str(change.move_path)
    return entry


def _edit_patterns(ctx: ToolContext, change: PlannedChange) -> list[str]:
    """The `edit` patterns a change is judged by: a move writes its destination, so the rules see it too."""
    return [p for target in (change.target, change.move) if target is not None for p in patterns(ctx, target)]


async def _ask_edit(ctx: ToolContext, changes: list[PlannedChange], files: list[dict[str, Any]]) -> None:
    """One `edit` ask for the whole patch, with its combined diff."""
    combined = "".join(change.diff + "\n" for change in changes)
    named = [relative_to_worktree(ctx.worktree, change.path) for change in changes]
    asked = list(dict.fromkeys(p for change in changes for p in _edit_patterns(ctx, change)))
    await ctx.ask("edit", asked, ["*"], {"filepath": ", ".join(named), "diff": combined, "files": files})


def _secret(ctx: ToolContext, change: PlannedChange) -> bool:
    return any(is_secret(ctx, target) for target in (change.target, change.move) if target is not None)


def _summary_line(change: PlannedChange, worktree: Path) -> str:
    letter = {"add": "A", "delete": "D"}.get(change.kind, "M")
    return f"{letter} {relative_to_worktree(worktree, change.final_path)}"


def parse_or_fail(text: str) -> list[Hunk]:
    from strata_core.tool.support.patch import BEGIN, END, PatchError, parse_patch

    if not text:
        raise ToolFailure("patchText is required")
    try:
        hunks = parse_patch(text)
    except PatchError as error:
        raise ToolFailure(f"{VERIFY}Error: {error}") from None
    if hunks:
        return hunks
    if text.replace("\r\n", "\n").replace("\r", "\n").strip() == f"{BEGIN}\n{END}":
        raise ToolFailure("patch rejected: empty patch")
    raise ToolFailure(f"{VERIFY}no hunks found")


@define
class ApplyPatchTool(BuiltinTool):
    NAME: ClassVar[str] = "apply_patch"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {"patchText": string("The whole patch, from *** Begin Patch to *** End Patch.")}, ["patchText"]
    )

    checks: CodeChecks = field(factory=CodeChecks)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        hunks = parse_or_fail(str(args["patchText"]))
        targets = [await _targets(ctx, hunk) for hunk in hunks]
        touched = [t for item in targets for t in (item.file, item.move) if t is not None]
        await ask_to_write(ctx, touched)
        async with _locked(targets):
            changes = await _plan_all(ctx, targets)
            await anyio.to_thread.run_sync(_ensure_possible, changes)
            files = [_file_entry(change, ctx) for change in changes]
            await _ask_edit(ctx, changes, files)
            for change in changes:
                await _apply(ctx, change)
        summary = "Success. Updated the following files:\n" + "\n".join(
            _summary_line(change, ctx.worktree) for change in changes
        )
        kept = "".join((REDACTED_DIFF if _secret(ctx, c) else c.diff) + "\n" for c in changes)
        written = [c.final_path for c in changes if c.kind != "delete"]
        checked_code = await self.checks.after_patch(written, ctx.worktree)
        metadata = {"diff": kept, "files": files, "diagnostics": checked_code.diagnostics}
        return ToolResult(output=summary + checked_code.note, title=summary, metadata=metadata)
