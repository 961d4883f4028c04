"""The `edit` tool: replace one piece of a file (or every occurrence), tolerating imperfect copies.

The file keeps its byte-order mark and its line endings: `oldString`/`newString` arrive with `\\n` and are
converted to the file's style before matching. Every tool that writes a file (edit, write, apply_patch)
holds its `file_lock` from reading it to writing it, so two concurrent calls cannot lose each other's change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar
from weakref import WeakValueDictionary

import anyio
from attrs import define, field, frozen

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.support.confined_file import Target, checked, existing_kind, patterns
from strata_core.tool.support.content_guard import (
    REDACTED_DIFF,
    ask_to_write,
    check_size,
    is_secret,
    read_current,
    write_content,
)
from strata_core.tool.support.edit_match import EMPTY_OLD, IDENTICAL, EditMatchError, replace
from strata_core.tool.support.file_text import (
    TextFile,
    count_changes,
    line_ending,
    normalize_line_endings,
    split_bom,
    to_line_ending,
    trim_diff,
    unified_diff,
)
from strata_core.tool.support.paths_guard import relative_to_worktree

_WRITING: WeakValueDictionary[Path, anyio.Lock] = WeakValueDictionary()


def file_lock(path: Path) -> anyio.Lock:
    """The lock held on a file (by resolved path) from reading it to writing it, by edit, write and apply_patch.

    One for the process rather than per tool: a `write` and an `edit` of one file in the same step (or two
    sessions of one server) each read the old text, and the later write silently dropped the other's change.
    Held weakly, a lock lasts only while someone holds or awaits it, so the map never grows with the files.
    """
    lock = _WRITING.get(path)
    if lock is None:
        lock = _WRITING[path] = anyio.Lock()
    return lock


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


async def ask_edit(ctx: ToolContext, change: FileChange, target: Target) -> None:
    await ctx.ask(
        "edit",
        patterns(ctx, target),
        ["*"],
        {"filepath": str(change.path), "diff": change.diff},
    )


def kept_diff(ctx: ToolContext, target: Target, diff: str) -> str:
    """The diff as stored with the result: none for a file the read rules protect (a `.env` file's secrets)."""
    return REDACTED_DIFF if is_secret(ctx, target) else diff


def change_metadata(ctx: ToolContext, target: Target, change: FileChange) -> dict[str, Any]:
    added, removed = count_changes(change.before, change.after)
    diff = kept_diff(ctx, target, change.diff)
    return {
        "diagnostics": {},
        "diff": diff,
        "filediff": {"file": str(change.path), "patch": diff, "additions": added, "deletions": removed},
    }


def _planned_replacement(path: Path, current: TextFile, old: str, new: str, replace_all: bool) -> FileChange:
    ending = line_ending(current.text)
    old = to_line_ending(normalize_line_endings(old), ending)
    new = to_line_ending(normalize_line_endings(new), ending)
    try:
        replaced = split_bom(replace(current.text, old, new, replace_all))
    except EditMatchError as error:
        raise ToolFailure(str(error)) from None
    return FileChange(path, current.text, replaced.text, current.bom or replaced.bom)


def _planned_creation(path: Path, content: str) -> FileChange:
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

    checks: CodeChecks = field(factory=CodeChecks)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        if not args["filePath"]:
            raise ToolFailure("filePath is required")
        old, new = str(args["oldString"]), str(args["newString"])
        if old == new:
            raise ToolFailure(IDENTICAL)
        target = await checked(ctx, str(args["filePath"]))
        path = target.named
        check_size(path, len(new))
        await ask_to_write(ctx, [target])
        async with file_lock(target.resolved):
            if existing_kind(target) == "directory":
                raise ToolFailure(f"Path is a directory, not a file: {path}")
            current = await read_current(ctx, target)
            if old == "":
                if current is not None:
                    raise ToolFailure(EMPTY_OLD)
                change = _planned_creation(path, new)
            else:
                if current is None:
                    raise ToolFailure(f"File {path} not found")
                replace_all = bool(args.get("replaceAll", False))
                change = await anyio.to_thread.run_sync(_planned_replacement, path, current, old, new, replace_all)
            await ask_edit(ctx, change, target)
            await write_content(ctx, target, change.after, change.bom)
        checked_code = await self.checks.after_edit(target.named)
        metadata = {**change_metadata(ctx, target, change), "diagnostics": checked_code.diagnostics}
        ctx.update_metadata(None, metadata)
        return ToolResult(
            output="Edit applied successfully." + checked_code.note,
            title=relative_to_worktree(ctx.worktree, path),
            metadata=metadata,
        )
