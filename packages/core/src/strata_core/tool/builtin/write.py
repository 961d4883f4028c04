"""The `write` tool: put a whole file in place, creating parent directories; an existing BOM is kept.

The file is opened by its checked, resolved path (`support/confined_file.py`), obeys the `.env` rule and
the protected paths (`support/content_guard.py`), and holds at most `MAX_EDIT_BYTES`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from attrs import define, field

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.builtin.edit import FileChange, ask_edit, file_lock, kept_diff
from strata_core.tool.contract import JSONSchema, ToolContext, ToolResult
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.support.confined_file import checked
from strata_core.tool.support.content_guard import ask_to_write, check_size, read_current, write_content
from strata_core.tool.support.file_text import TextFile, split_bom
from strata_core.tool.support.paths_guard import relative_to_worktree


@define
class WriteTool(BuiltinTool):
    NAME: ClassVar[str] = "write"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "content": string("The complete new content of the file."),
            "filePath": string("Absolute path of the file to write."),
        },
        ["content", "filePath"],
    )

    checks: CodeChecks = field(factory=CodeChecks)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        content = str(args["content"])
        target = await checked(ctx, str(args["filePath"]))
        check_size(target.named, len(content))  # before any copy of it is made: a character is a byte at least
        await ask_to_write(ctx, [target])
        async with file_lock(target.resolved):  # shared with edit and apply_patch: no change of theirs is lost
            current = await read_current(ctx, target)
            new = split_bom(content)
            before = current or TextFile("", False)
            change = FileChange(target.named, before.text, new.text, before.bom or new.bom)
            await ask_edit(ctx, change, target)
            await write_content(ctx, target, change.after, change.bom)
        checked_code = await self.checks.after_write(target.named)
        return ToolResult(
            output="Wrote file successfully." + checked_code.note,
            title=relative_to_worktree(ctx.worktree, target.named),
            metadata={
                "diagnostics": checked_code.diagnostics,
                "filepath": str(target.named),
                "exists": current is not None,
                "diff": kept_diff(ctx, target, change.diff),
            },
        )
