"""The `glob` tool: files whose path matches a pattern, newest first, at most 100."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import anyio
from attrs import define, field

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.paths_guard import absolute, assert_external_directory, relative_to_worktree
from strata_core.tool.support.search import Search, SearchError

LIMIT = 100
COLLECT_LIMIT = 10_000
"""How many matches are ordered by age before the newest 100 are kept (beyond this, order is rg's)."""


def newest_first(root: Path, relatives: Sequence[str]) -> list[str]:
    def age(relative: str) -> float:
        try:
            return -(root / relative).stat().st_mtime
        except OSError:
            return 0.0

    return sorted(relatives, key=age)


@define
class GlobTool(BuiltinTool):
    NAME: ClassVar[str] = "glob"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "pattern": string('Glob to match file paths against, e.g. "**/*.py".'),
            "path": string("Directory to search; leave the field out to search the working directory."),
        },
        ["pattern"],
    )

    search: Search = field(factory=Search)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        pattern = str(args["pattern"])
        raw_path = args.get("path")
        await ctx.ask("glob", [pattern], ["*"], {"pattern": pattern, "path": raw_path})
        root = absolute(str(raw_path), ctx.directory) if raw_path else ctx.directory
        if root.is_file():
            raise ToolFailure(f"glob path must be a directory: {root}")
        await assert_external_directory(ctx, root, kind="directory")
        if not root.is_dir():
            raise ToolFailure(f"Search path not found: {root}")
        try:
            found = await self.search.files(root, pattern=pattern, limit=COLLECT_LIMIT)
        except SearchError as error:
            raise ToolFailure(str(error)) from None
        ordered = await anyio.to_thread.run_sync(newest_first, root, found.files)
        shown = ordered[:LIMIT]
        truncated = found.more or len(ordered) > LIMIT
        lines = [str(root / relative) for relative in shown] or ["No files found"]
        if truncated:
            lines += [
                "",
                f"(Results are truncated: showing first {LIMIT} results. "
                "Consider using a more specific path or pattern.)",
            ]
        if found.skipped:  # the files of a directory that could not be listed are missing from the list
            lines += ["", "(Some directories could not be read, so the files in them are not listed.)"]
        return ToolResult(
            output="\n".join(lines),
            title=relative_to_worktree(ctx.worktree, root),
            metadata={"count": len(shown), "truncated": truncated},
        )
