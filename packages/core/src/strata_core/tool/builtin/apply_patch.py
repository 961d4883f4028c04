"""The `apply_patch` tool: add, delete, update and move files in one patch (offered to GPT-5-style models).

Every file is checked before any is touched: a patch that does not apply changes nothing. One `edit`
permission ask covers all the files, with the combined diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import anyio
from attrs import define, frozen

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.file_text import (
    count_changes,
    normalize_line_endings,
    read_text_file,
    split_bom,
    trim_diff,
    unified_diff,
    with_bom,
)
from strata_core.tool.support.file_text import write_text_file as write_file
from strata_core.tool.support.paths_guard import (
    absolute,
    assert_external_directory,
    permission_patterns,
    relative_to_worktree,
)

if TYPE_CHECKING:
    # The patch parser is imported when a patch arrives (~2.5 ms that every start-up would otherwise pay).
    from strata_core.tool.support.patch import Hunk

VERIFY = "apply_patch verification failed: "


@frozen
class PlannedChange:
    kind: Literal["add", "update", "move", "delete"]
    path: Path
    before: str
    after: str
    bom: bool
    move_path: Path | None = None

    @property
    def diff(self) -> str:
        before, after = normalize_line_endings(self.before), normalize_line_endings(self.after)
        return trim_diff(unified_diff(str(self.path), before, after))

    @property
    def final_path(self) -> Path:
        return self.move_path or self.path


def _plan(hunk: Hunk, directory: Path) -> PlannedChange:
    from strata_core.tool.support.patch import PatchError, updated_contents

    path = absolute(hunk.path, directory)
    if hunk.kind == "add":
        text = hunk.contents if not hunk.contents or hunk.contents.endswith("\n") else hunk.contents + "\n"
        added = split_bom(text)
        return PlannedChange("add", path, "", added.text, added.bom)
    if not path.is_file():
        verb = "update" if hunk.kind == "update" else "delete"
        raise ToolFailure(f"{VERIFY}Failed to read file to {verb}: {path}")
    current = read_text_file(path)
    if hunk.kind == "delete":
        return PlannedChange("delete", path, current.text, "", current.bom)
    try:
        updated = updated_contents(str(path), hunk.chunks, with_bom(current.text, current.bom))
    except PatchError as error:
        raise ToolFailure(f"{VERIFY}Error: {error}") from None
    move = absolute(hunk.move_path, directory) if hunk.move_path else None
    return PlannedChange("move" if move else "update", path, current.text, updated.content, updated.bom, move)


def _apply(change: PlannedChange) -> None:
    if change.kind == "delete":
        change.path.unlink()
        return
    write_file(change.final_path, change.after, change.bom)
    if change.kind == "move" and change.move_path != change.path:
        change.path.unlink()


def _file_entry(change: PlannedChange, worktree: Path) -> dict[str, Any]:
    added, removed = count_changes(change.before, change.after)
    entry: dict[str, Any] = {
        "filePath": str(change.path),
        "relativePath": relative_to_worktree(worktree, change.final_path),
        "type": change.kind,
        "patch": change.diff,
        "additions": added,
        "deletions": removed,
    }
    if change.move_path:
        entry["movePath"] = str(change.move_path)
    return entry


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

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        hunks = parse_or_fail(str(args["patchText"]))
        changes = []
        for hunk in hunks:
            await assert_external_directory(ctx, absolute(hunk.path, ctx.directory))
            if hunk.move_path:
                await assert_external_directory(ctx, absolute(hunk.move_path, ctx.directory))
            changes.append(await anyio.to_thread.run_sync(_plan, hunk, ctx.directory))
        files = [_file_entry(change, ctx.worktree) for change in changes]
        combined = "".join(change.diff + "\n" for change in changes)
        named = [relative_to_worktree(ctx.worktree, change.path) for change in changes]
        patterns = list(dict.fromkeys(p for change in changes for p in permission_patterns(ctx.worktree, change.path)))
        await ctx.ask("edit", patterns, ["*"], {"filepath": ", ".join(named), "diff": combined, "files": files})
        for change in changes:
            await anyio.to_thread.run_sync(_apply, change)
        summary = "Success. Updated the following files:\n" + "\n".join(
            _summary_line(change, ctx.worktree) for change in changes
        )
        return ToolResult(output=summary, title=summary, metadata={"diff": combined, "files": files, "diagnostics": {}})
