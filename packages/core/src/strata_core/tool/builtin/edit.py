"""The `edit` tool: replace one piece of a file (or every occurrence), tolerating imperfect copies.

The file keeps its byte-order mark and its line endings: `oldString`/`newString` arrive with `\\n` and are
converted to the file's style before matching. Edits to one file are serialised, so two concurrent calls
cannot lose each other's change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import anyio
from attrs import define, field, frozen

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.edit_match import EMPTY_OLD, IDENTICAL, EditMatchError, replace
from strata_core.tool.support.file_text import (
    count_changes,
    line_ending,
    normalize_line_endings,
    read_text_file,
    split_bom,
    to_line_ending,
    trim_diff,
    unified_diff,
    write_text_file,
)
from strata_core.tool.support.paths_guard import (
    absolute,
    assert_external_directory,
    permission_patterns,
    relative_to_worktree,
)


@frozen
class FileChange:
    path: Path
    before: str
    after: str
    bom: bool

    @property
    def diff(self) -> str:
        return trim_diff(
            unified_diff(str(self.path), normalize_line_endings(self.before), normalize_line_endings(self.after))
        )


async def ask_edit(ctx: ToolContext, change: FileChange) -> None:
    await ctx.ask(
        "edit",
        permission_patterns(ctx.worktree, change.path),
        ["*"],
        {"filepath": str(change.path), "diff": change.diff},
    )


def change_metadata(change: FileChange) -> dict[str, Any]:
    added, removed = count_changes(change.before, change.after)
    diff = change.diff
    return {
        "diagnostics": {},
        "diff": diff,
        "filediff": {"file": str(change.path), "patch": diff, "additions": added, "deletions": removed},
    }


def _planned_replacement(path: Path, old: str, new: str, replace_all: bool) -> FileChange:
    if not path.exists():
        raise ToolFailure(f"File {path} not found")
    if path.is_dir():
        raise ToolFailure(f"Path is a directory, not a file: {path}")
    current = read_text_file(path)
    ending = line_ending(current.text)
    old = to_line_ending(normalize_line_endings(old), ending)
    new = to_line_ending(normalize_line_endings(new), ending)
    try:
        replaced = split_bom(replace(current.text, old, new, replace_all))
    except EditMatchError as error:
        raise ToolFailure(str(error)) from None
    return FileChange(path, current.text, replaced.text, current.bom or replaced.bom)


def _planned_creation(path: Path, content: str) -> FileChange:
    if path.exists():
        raise ToolFailure(EMPTY_OLD)
    created = split_bom(content)
    return FileChange(path, "", created.text, created.bom)


@define
class EditTool(BuiltinTool):
    NAME: ClassVar[str] = "edit"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "filePath": string("Absolute path of the file to change."),
            "oldString": string("The exact text to find and replace."),
            "newString": string("The text to put in its place; must differ from oldString."),
            "replaceAll": {
                "type": "boolean",
                "description": "Replace every occurrence of oldString (false by default).",
            },
        },
        ["filePath", "oldString", "newString"],
    )

    _locks: dict[Path, anyio.Lock] = field(factory=dict, init=False)

    def _lock(self, path: Path) -> anyio.Lock:
        return self._locks.setdefault(path, anyio.Lock())

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        if not args["filePath"]:
            raise ToolFailure("filePath is required")
        old, new = str(args["oldString"]), str(args["newString"])
        if old == new:
            raise ToolFailure(IDENTICAL)
        path = absolute(str(args["filePath"]), ctx.directory)
        await assert_external_directory(ctx, path)
        async with self._lock(path):
            if old == "":
                change = await anyio.to_thread.run_sync(_planned_creation, path, new)
            else:
                replace_all = bool(args.get("replaceAll", False))
                change = await anyio.to_thread.run_sync(_planned_replacement, path, old, new, replace_all)
            await ask_edit(ctx, change)
            await anyio.to_thread.run_sync(write_text_file, path, change.after, change.bom)
        metadata = change_metadata(change)
        ctx.update_metadata(None, metadata)
        return ToolResult(
            output="Edit applied successfully.", title=relative_to_worktree(ctx.worktree, path), metadata=metadata
        )
