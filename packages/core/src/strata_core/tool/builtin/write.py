"""The `write` tool: put a whole file in place, creating parent directories; an existing BOM is kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import anyio
from attrs import define

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.builtin.edit import FileChange, ask_edit
from strata_core.tool.contract import JSONSchema, ToolContext, ToolResult
from strata_core.tool.support.file_text import TextFile, read_text_file, split_bom, write_text_file
from strata_core.tool.support.paths_guard import absolute, assert_external_directory, relative_to_worktree


def _planned_write(path: Path, content: str) -> tuple[FileChange, bool]:
    exists = path.is_file()
    current = read_text_file(path) if exists else TextFile("", False)
    new = split_bom(content)
    return FileChange(path, current.text, new.text, current.bom or new.bom), exists


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

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        path = absolute(str(args["filePath"]), ctx.directory)
        await assert_external_directory(ctx, path)
        change, exists = await anyio.to_thread.run_sync(_planned_write, path, str(args["content"]))
        await ask_edit(ctx, change)
        await anyio.to_thread.run_sync(write_text_file, path, change.after, change.bom)
        return ToolResult(
            output="Wrote file successfully.",
            title=relative_to_worktree(ctx.worktree, path),
            metadata={"diagnostics": {}, "filepath": str(path), "exists": exists, "diff": change.diff},
        )
