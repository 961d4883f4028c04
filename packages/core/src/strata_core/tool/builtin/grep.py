"""The `grep` tool: lines matching a regular expression, grouped by file, newest files first, at most 100.

The listing mirrors OpenCode 1.18.33 to the character, including a quirk: each line's text is ripgrep's,
newline and all, so a blank line follows every match.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import anyio
from attrs import define, field

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.paths_guard import absolute, assert_external_directory
from strata_core.tool.support.search import LineMatch, Search, SearchError

LIMIT = 100
COLLECT_LIMIT = 2_000
MAX_LINE_LENGTH = 2000


def newest_files_first(root: Path, matches: Sequence[LineMatch]) -> list[LineMatch]:
    """Matches ordered by their file's modification time, newest first; a file's lines stay in order."""
    ages: dict[str, float] = {}
    for match in matches:
        if match.path not in ages:
            try:
                ages[match.path] = -(root / match.path).stat().st_mtime
            except OSError:
                ages[match.path] = 0.0
    return sorted(matches, key=lambda match: ages[match.path])


def _line_text(text: str) -> str:
    return text[:MAX_LINE_LENGTH] + "..." if len(text) > MAX_LINE_LENGTH else text


def render(root: Path, shown: Sequence[LineMatch], truncated: bool) -> str:
    out = [f"Found {len(shown)} matches" + (" (more matches available)" if truncated else "")]
    current = None
    for match in shown:
        path = str(root / match.path)
        if path != current:
            if current is not None:
                out.append("")
            current = path
            out.append(f"{path}:")
        out.append(f"  Line {match.line}: {_line_text(match.text)}")
    if truncated:
        out += ["", "(Results truncated. Consider using a more specific path or pattern.)"]
    return "\n".join(out)


@define
class GrepTool(BuiltinTool):
    NAME: ClassVar[str] = "grep"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "pattern": string("Regular expression to look for in file contents."),
            "path": string("Directory (or file) to search; the working directory when left out."),
            "include": string('Only search files whose name matches this glob, e.g. "*.py" or "*.{ts,tsx}".'),
        },
        ["pattern"],
    )

    search: Search = field(factory=Search)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        pattern = str(args["pattern"])
        if not pattern:
            raise ToolFailure("pattern is required")
        raw_path, include = args.get("path"), args.get("include")
        await ctx.ask("grep", [pattern], ["*"], {"pattern": pattern, "path": raw_path, "include": include})
        requested = absolute(str(raw_path), ctx.directory) if raw_path else ctx.directory
        if not requested.exists():
            raise ToolFailure(f"Search path not found: {raw_path or ctx.directory}")
        is_dir = requested.is_dir()
        await assert_external_directory(ctx, requested, kind="directory" if is_dir else "file")
        root, target = (requested, ".") if is_dir else (requested.parent, requested.name)
        try:
            found = await self.search.grep(root, pattern, target=target, include=include, limit=COLLECT_LIMIT)
        except SearchError as error:
            raise ToolFailure(str(error)) from None
        if not found.lines:
            return ToolResult(output="No files found", title=pattern, metadata={"matches": 0, "truncated": False})
        ordered = await anyio.to_thread.run_sync(newest_files_first, root, found.lines)
        shown = ordered[:LIMIT]
        truncated = found.more or len(ordered) > LIMIT
        return ToolResult(
            output=render(root, shown, truncated),
            title=pattern,
            metadata={"matches": len(shown), "truncated": truncated},
        )
