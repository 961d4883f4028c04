"""The `grep` tool: lines matching a regular expression, grouped by file, newest files first, at most 100.

The listing mirrors OpenCode 1.18.33 to the character, including a quirk: each line's text is ripgrep's,
newline and all, so a blank line follows every match.

Lines shown from a `.env`-style file (the file grep was pointed at, or one a rule lets it show) name that
file in `secret_files`, so they reach the model without being stored (`strata_core.secret_outputs`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import anyio
from attrs import define, field

from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.confined_file import (
    Target,
    checked,
    descriptor,
    existing_kind,
    links_outside,
    open_directory,
    open_to_read,
)
from strata_core.tool.support.content_guard import ask_to_read, is_secret_path, readable
from strata_core.tool.support.paths_guard import relative_to_worktree
from strata_core.tool.support.search import Found, LineMatch, Search, SearchError

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
        target = await checked(ctx, str(raw_path) if raw_path else ctx.directory)
        kind = existing_kind(target)
        if kind is None:
            raise ToolFailure(f"Search path not found: {raw_path or ctx.directory}")
        try:
            if kind == "directory":
                root, found = target.named, await self._in_directory(target, pattern, include)
            else:
                root, found = target.named.parent, await self._in_file(ctx, target, pattern)
        except SearchError as error:
            raise ToolFailure(str(error)) from None
        kept, left_out = await anyio.to_thread.run_sync(shown_to_model, ctx, target, root, found.lines)
        notes = left_out_note(left_out) + skipped_note(found)
        if not kept:
            return ToolResult(
                output="No files found" + notes, title=pattern, metadata={"matches": 0, "truncated": False}
            )
        ordered = await anyio.to_thread.run_sync(newest_files_first, root, kept)
        shown = ordered[:LIMIT]
        truncated = found.more or len(ordered) > LIMIT
        return ToolResult(
            output=render(root, shown, truncated) + notes,
            title=pattern,
            metadata={"matches": len(shown), "truncated": truncated},
            secret_files=shown_secrets(ctx, target, root, shown),
        )

    async def _in_directory(self, target: Target, pattern: str, include: str | None) -> Found:
        fd = await anyio.to_thread.run_sync(open_directory, target)
        with descriptor(fd):
            # rg runs in the directory opened above (through /proc, so no symlink swapped in since is followed).
            # Inside it, rg follows no symlinks by itself.
            root = _opened_directory(fd) if self.search.uses_rg() else target.resolved
            return await self.search.grep(root, pattern, target=".", include=include, limit=COLLECT_LIMIT)

    async def _in_file(self, ctx: ToolContext, target: Target, pattern: str) -> Found:
        await ask_to_read(ctx, target)  # a file named on purpose asks, as `read` would
        fd = await open_to_read(ctx, target)
        with descriptor(fd):
            return await self.search.grep_descriptor(fd, target.named.name, pattern, limit=COLLECT_LIMIT)


def _opened_directory(fd: int) -> Path:
    # `self`, not Strata's pid: rg's process enters it (as its cwd) before it execs, still holding `fd`, and
    # once Strata is not dumpable (sandbox/undumpable.py) another process may not follow Strata's fd links.
    return Path(f"/proc/self/fd/{fd}")


def shown_to_model(
    ctx: ToolContext, target: Target, root: Path, matches: Sequence[LineMatch]
) -> tuple[list[LineMatch], list[str]]:
    """The matches the model may see, and the files left out: ones the read rules protect (`.env`), and
    ones hard-linked from outside the project. The file the model named itself was checked when opened."""
    verdicts: dict[str, bool] = {}
    for match in matches:
        if match.path not in verdicts:
            verdicts[match.path] = _may_show(ctx, *_match_paths(target, root, match.path))
    kept = [match for match in matches if verdicts[match.path]]
    return kept, [str(root / path) for path, ok in verdicts.items() if not ok]


def shown_secrets(ctx: ToolContext, target: Target, root: Path, shown: Sequence[LineMatch]) -> tuple[str, ...]:
    """The secret files among those shown (the one the model named and the user let it read, or `.env`
    files a rule lets grep show), worktree-relative: their lines are not stored with the result."""
    files = dict.fromkeys(match.path for match in shown)
    return tuple(
        relative_to_worktree(ctx.worktree, root / path)
        for path in files
        if any(is_secret_path(ctx, relative_to_worktree(ctx.worktree, p)) for p in _match_paths(target, root, path))
    )


def _match_paths(target: Target, root: Path, path: str) -> tuple[Path, Path]:
    """A matched file as named under the searched path, and as resolved (the searched path's symlinks followed)."""
    if root != target.named:  # the model named a file: the match is in that very file
        return target.named, target.resolved
    return root / path, target.resolved / path


def _may_show(ctx: ToolContext, named: Path, resolved: Path) -> bool:
    for path in (named, resolved):
        if not readable(ctx, relative_to_worktree(ctx.worktree, path)):
            return False
    try:
        return not links_outside(os.lstat(resolved), ctx)
    except OSError:
        return True


def left_out_note(paths: Sequence[str]) -> str:
    if not paths:
        return ""
    listed = "\n".join(paths[:10]) + ("\n..." if len(paths) > 10 else "")
    return (
        f"\n\n(Matches in {len(paths)} file(s) left out: the read rules protect them, or they are hard-linked "
        f"from outside the project. Use the read tool to ask for one.)\n{listed}"
    )


def skipped_note(found: Found) -> str:
    """Said when files went unsearched: no match there is not the same as no match at all."""
    if not found.skipped:
        return ""
    return "\n\n(Some files or directories could not be read, so they were not searched.)"
