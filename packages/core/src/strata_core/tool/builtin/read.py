"""The `read` tool: a numbered window of a text file, a directory listing, or an image/PDF as an attachment.

Output framing follows OpenCode 1.18.33 exactly (`<path>`, `<type>`, `<content>`, `N: ` prefixes and the
footers), because models prompted for OpenCode parse it. Instruction files (AGENTS.md) found between the
file and the session directory are appended in a `<system-reminder>` the first time they are relevant.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

import anyio
from attrs import define, frozen

from strata_core.message import MessageWithParts
from strata_core.tool.builtin.base import BuiltinTool, non_negative_integer, object_schema, string
from strata_core.tool.contract import Attachment, JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.file_kind import is_binary, media_type
from strata_core.tool.support.paths_guard import (
    absolute,
    assert_external_directory,
    permission_patterns,
    relative_to_worktree,
)

DEFAULT_LIMIT = 2000
MAX_LINE_LENGTH = 2000
LINE_CUT_SUFFIX = f"... (line truncated to {MAX_LINE_LENGTH} chars)"
MAX_BYTES = 50 * 1024
SAMPLE_BYTES = 4096
PREVIEW_LINES = 20


class InstructionText(Protocol):
    """One instruction file found near a read file: where it is, and its text framed for the model."""

    @property
    def source(self) -> str | os.PathLike[str]: ...

    @property
    def text(self) -> str:
        """`Instructions from: {source}\\n{content}`."""
        ...


class NearbyInstructions(Protocol):
    """Instruction files between a read file and the session directory (reference §4.4)."""

    async def resolve(
        self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str
    ) -> Sequence[InstructionText]: ...


@frozen
class Window:
    """The lines of a file a read shows, and whether more were left out (by the limit or the byte cap)."""

    lines: tuple[str, ...]
    count: int
    cut: bool
    more: bool


def read_window(path: Path, offset: int, limit: int) -> Window:
    """Lines `offset..offset+limit-1` (1-based), each capped at 2000 chars, all within 50 KB.

    Counting goes on past the window so the footer can say how long the file is, unless the byte cap
    stopped the read early.
    """
    kept: list[str] = []
    used = count = 0
    cut = more = False
    # Universal newlines: \r\n and a lone \r end a line, like OpenCode's line splitter; a BOM is dropped.
    with path.open(encoding="utf-8-sig", errors="replace", newline=None) as handle:
        for line in handle:
            count += 1
            if count < offset:
                continue
            if len(kept) >= limit:
                more = True
                continue
            text = line[:-1] if line.endswith("\n") else line
            if len(text) > MAX_LINE_LENGTH:
                text = text[:MAX_LINE_LENGTH] + LINE_CUT_SUFFIX
            size = len(text.encode("utf-8", errors="surrogatepass")) + (1 if kept else 0)
            if used + size > MAX_BYTES:
                cut = more = True
                break
            kept.append(text)
            used += size
    return Window(tuple(kept), count, cut, more)


def _listing_key(name: str) -> tuple[str, str]:
    # Close to JavaScript's localeCompare: case-insensitive first, lower case before upper on ties.
    return (name.casefold(), name.swapcase())


def list_entries(directory: Path) -> list[str]:
    # `is_dir` follows symlinks: a link to a directory is listed as one.
    entries = [child.name + "/" if child.is_dir() else child.name for child in directory.iterdir()]
    return sorted(entries, key=_listing_key)


def missing_file_message(filepath: Path) -> str:
    base = filepath.name.lower()
    try:
        names = sorted(child.name for child in filepath.parent.iterdir())
    except OSError:
        names = []
    similar = [str(filepath.parent / n) for n in names if base in n.lower() or n.lower() in base][:3]
    if similar:
        return f"File not found: {filepath}\n\nDid you mean one of these?\n" + "\n".join(similar)
    return f"File not found: {filepath}"


def _sample(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(SAMPLE_BYTES)


def file_footer(window: Window, offset: int) -> str:
    last = offset + len(window.lines) - 1
    if window.cut:
        shown = f"Showing lines {offset}-{last}. Use offset={last + 1} to continue."
        return f"(Output capped at {MAX_BYTES // 1024} KB. {shown})"
    if window.more:
        return f"(Showing lines {offset}-{last} of {window.count}. Use offset={last + 1} to continue.)"
    return f"(End of file - total {window.count} lines)"


@define
class ReadTool(BuiltinTool):
    """Reads files and directories. `instructions` supplies nearby AGENTS.md files; without it none are added."""

    NAME: ClassVar[str] = "read"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "filePath": string("Absolute path of the file or directory to read."),
            "offset": non_negative_integer("First line to show, counting from 1."),
            "limit": non_negative_integer("How many lines to show at most (2000 when omitted)."),
        },
        ["filePath"],
    )

    instructions: NearbyInstructions | None = None

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        filepath = absolute(str(args["filePath"]), ctx.directory)
        title = relative_to_worktree(ctx.worktree, filepath)
        is_dir = filepath.is_dir()
        exists = is_dir or filepath.exists()
        bypass = bool(ctx.extra.get("bypass_cwd_check"))
        await assert_external_directory(ctx, filepath, kind="directory" if is_dir else "file", bypass=bypass)
        await ctx.ask("read", permission_patterns(ctx.worktree, filepath), ["*"], {})
        if not exists:
            raise ToolFailure(missing_file_message(filepath))
        offset = int(args.get("offset") or 1)
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if is_dir:
            return await self._directory(filepath, title, offset, limit)
        return await self._file(filepath, title, offset, limit, ctx)

    async def _directory(self, path: Path, title: str, offset: int, limit: int) -> ToolResult:
        entries = await anyio.to_thread.run_sync(list_entries, path)
        start = offset - 1
        shown = entries[start : start + limit]
        truncated = start + len(shown) < len(entries)
        footer = (
            f"\n(Showing {len(shown)} of {len(entries)} entries. Use 'offset' parameter to read beyond entry "
            f"{offset + len(shown)})"
            if truncated
            else f"\n({len(entries)} entries)"
        )
        output = "\n".join(
            [f"<path>{path}</path>", "<type>directory</type>", "<entries>", "\n".join(shown), footer, "</entries>"]
        )
        metadata = {"preview": "\n".join(shown[:PREVIEW_LINES]), "truncated": truncated, "loaded": []}
        return ToolResult(output=output, title=title, metadata=metadata)

    async def _nearby(self, ctx: ToolContext, path: Path) -> Sequence[InstructionText]:
        if self.instructions is None:
            return ()
        return await self.instructions.resolve(ctx.messages, path, ctx.message_id)

    async def _file(self, path: Path, title: str, offset: int, limit: int, ctx: ToolContext) -> ToolResult:
        nearby = await self._nearby(ctx, path)
        loaded = [str(item.source) for item in nearby]
        sample = await anyio.to_thread.run_sync(_sample, path)
        mime = media_type(path, sample)
        if mime is not None:
            return await self._attachment(path, title, mime, loaded)
        if is_binary(path, sample):
            raise ToolFailure(f"Cannot read binary file: {path}")
        window = await anyio.to_thread.run_sync(read_window, path, offset, limit)
        if window.count < offset and not (window.count == 0 and offset == 1):
            raise ToolFailure(f"Offset {offset} is out of range for this file ({window.count} lines)")
        numbered = "\n".join(f"{offset + i}: {line}" for i, line in enumerate(window.lines))
        footer = file_footer(window, offset)
        output = f"<path>{path}</path>\n<type>file</type>\n<content>\n{numbered}\n\n{footer}\n</content>"
        if nearby:
            output += "\n\n<system-reminder>\n" + "\n\n".join(item.text for item in nearby) + "\n</system-reminder>"
        truncated = window.more or window.cut
        # `display`: what was read, for a client to show (OpenCode's field; `strata run` prints the range).
        display = {
            "type": "file",
            "path": str(path),
            "text": "\n".join(window.lines),
            "lineStart": offset,
            "lineEnd": offset + len(window.lines) - 1,
            "totalLines": window.count,
            "truncated": truncated,
        }
        metadata = {
            "preview": "\n".join(window.lines[:PREVIEW_LINES]),
            "truncated": truncated,
            "loaded": loaded,
            "display": display,
        }
        return ToolResult(output=output, title=title, metadata=metadata)

    async def _attachment(self, path: Path, title: str, mime: str, loaded: list[str]) -> ToolResult:
        data = await anyio.Path(path).read_bytes()
        message = "PDF read successfully" if mime == "application/pdf" else "Image read successfully"
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return ToolResult(
            output=message,
            title=title,
            metadata={"preview": message, "truncated": False, "loaded": loaded},
            attachments=(Attachment(mime=mime, url=url),),
        )
