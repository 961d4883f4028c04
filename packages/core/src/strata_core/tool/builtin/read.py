"""The `read` tool: a numbered window of a text file, a directory listing, or an image/PDF as an attachment.

Output framing follows OpenCode 1.18.33 exactly (`<path>`, `<type>`, `<content>`, `N: ` prefixes and the
footers), because models prompted for OpenCode parse it. Instruction files (AGENTS.md) found between the
file and the session directory are appended in a `<system-reminder>` the first time they are relevant.

A `.env`-style file the user let it read (`content_guard.is_secret`) is named in `secret_files`: the model gets
the content, the session keeps a placeholder, which also stands in `preview` and `display` here.
"""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

import anyio
from attrs import define, evolve, field, frozen

from strata_core.message import MessageWithParts
from strata_core.secret_outputs import secret_placeholder
from strata_core.tool.builtin.base import BuiltinTool, non_negative_integer, object_schema, string
from strata_core.tool.contract import Attachment, JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.support.confined_file import (
    Target,
    checked,
    descriptor,
    existing_kind,
    open_directory,
    open_to_read,
)
from strata_core.tool.support.content_guard import ask_to_read, is_secret
from strata_core.tool.support.file_kind import is_binary, media_type
from strata_core.tool.support.paths_guard import relative_to_worktree

DEFAULT_LIMIT = 2000
MAX_LINE_LENGTH = 2000
LINE_CUT_SUFFIX = f"... (line truncated to {MAX_LINE_LENGTH} chars)"
MAX_BYTES = 50 * 1024
SAMPLE_BYTES = 4096
PREVIEW_LINES = 20
_SKIP_CHUNK = 64 * 1024
COUNT_PAST_WINDOW = 1_000_000


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
    counted_all: bool = True
    """False when counting stopped `COUNT_PAST_WINDOW` lines after the window: `count` is then a lower bound."""


def _lines(fd: int) -> Iterator[tuple[str, bool]]:
    """The file's lines through `fd`, each cut to `MAX_LINE_LENGTH` characters (and whether it was cut).

    Read in bounded pieces: a 200 MB file with no newline costs a buffer, not 200 MB. Universal newlines:
    `\r\n` and a lone `\r` end a line, like OpenCode's line splitter; a BOM is dropped.
    """
    raw = io.FileIO(fd, "r", closefd=False)
    with io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8-sig", errors="replace", newline=None) as text:
        while True:
            line = text.readline(MAX_LINE_LENGTH + 1)
            if not line:
                return
            if len(line) <= MAX_LINE_LENGTH or line.endswith("\n"):
                yield line.removesuffix("\n"), False
                continue
            rest = line
            while rest and not rest.endswith("\n"):  # skip the rest of an overlong line, a piece at a time
                rest = text.readline(_SKIP_CHUNK)
            yield line[:MAX_LINE_LENGTH], True


def read_window(fd: int, offset: int, limit: int) -> Window:
    """Lines `offset..offset+limit-1` (1-based), each capped at 2000 chars, all within 50 KB.

    Counting goes on past the window so the footer can say how long the file is, unless the byte cap
    stopped the read early, or for at most `COUNT_PAST_WINDOW` more lines (a multi-gigabyte log is not read
    to its end to print its length).
    """
    kept: list[str] = []
    used = count = 0
    cut = more = False
    for line, long in _lines(fd):
        count += 1
        if count < offset:
            continue
        if len(kept) >= limit:
            more = True
            if count - offset - len(kept) >= COUNT_PAST_WINDOW:
                return Window(tuple(kept), count, cut, more, counted_all=False)
            continue
        text = line + LINE_CUT_SUFFIX if long else line
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


def list_entries(fd: int) -> list[str]:
    """The names in the directory behind `fd`; a symlink to a directory is listed as one."""
    with os.scandir(fd) as entries:
        names = [entry.name + "/" if _is_dir(entry) else entry.name for entry in entries]
    return sorted(names, key=_listing_key)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _listing(fd: int) -> list[str]:
    with descriptor(fd):
        return list_entries(fd)


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


def _sample(fd: int) -> bytes:
    return os.pread(fd, SAMPLE_BYTES, 0)


def _window(fd: int, offset: int, limit: int) -> Window:
    with descriptor(fd):
        return read_window(fd, offset, limit)


def file_footer(window: Window, offset: int) -> str:
    last = offset + len(window.lines) - 1
    if window.cut:
        shown = f"Showing lines {offset}-{last}. Use offset={last + 1} to continue."
        return f"(Output capped at {MAX_BYTES // 1024} KB. {shown})"
    if window.more:
        total = window.count if window.counted_all else f"at least {window.count}"
        return f"(Showing lines {offset}-{last} of {total}. Use offset={last + 1} to continue.)"
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
    checks: CodeChecks = field(factory=CodeChecks)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        bypass = bool(ctx.extra.get("bypass_cwd_check"))
        target = await checked(ctx, str(args["filePath"]), bypass=bypass)
        title = relative_to_worktree(ctx.worktree, target.named)
        await ask_to_read(ctx, target)
        kind = existing_kind(target)
        if kind is None:
            raise ToolFailure(missing_file_message(target.named))
        offset = int(args.get("offset") or 1)
        limit = int(args.get("limit", DEFAULT_LIMIT))
        if kind == "directory":
            return await self._directory(target, title, offset, limit)
        return await self._file(target, title, offset, limit, ctx)

    async def _directory(self, target: Target, title: str, offset: int, limit: int) -> ToolResult:
        fd = await anyio.to_thread.run_sync(open_directory, target)
        entries = await anyio.to_thread.run_sync(_listing, fd, abandon_on_cancel=True)
        path = target.named
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

    async def _file(self, target: Target, title: str, offset: int, limit: int, ctx: ToolContext) -> ToolResult:
        path = target.named
        fd = await open_to_read(ctx, target)
        try:
            nearby = await self._nearby(ctx, path)
            sample = await anyio.to_thread.run_sync(_sample, fd)
        except BaseException:
            os.close(fd)
            raise
        loaded = [str(item.source) for item in nearby]
        mime = media_type(path, sample)
        if mime is not None:
            return _kept_back(await self._attachment(fd, path, title, mime, loaded), ctx, target)
        if is_binary(path, sample):
            os.close(fd)
            raise ToolFailure(f"Cannot read binary file: {path}")
        window = await anyio.to_thread.run_sync(_window, fd, offset, limit, abandon_on_cancel=True)
        await self.checks.after_read(path)
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
        return _kept_back(ToolResult(output=output, title=title, metadata=metadata), ctx, target)

    async def _attachment(self, fd: int, path: Path, title: str, mime: str, loaded: list[str]) -> ToolResult:
        from strata_core.tool.support.attachment_cap import capped_attachment

        data, mime = await anyio.to_thread.run_sync(capped_attachment, fd, path, mime, abandon_on_cancel=True)
        message = "PDF read successfully" if mime == "application/pdf" else "Image read successfully"
        url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        return ToolResult(
            output=message,
            title=title,
            metadata={"preview": message, "truncated": False, "loaded": loaded},
            attachments=(Attachment(mime=mime, url=url),),
        )


def _kept_back(result: ToolResult, ctx: ToolContext, target: Target) -> ToolResult:
    """A secret file's read (the user allowed it): the model gets the content, the stored metadata does not."""
    if not is_secret(ctx, target):
        return result
    placeholder = secret_placeholder([result.title])
    # The nearby instructions went out with the content, which is not kept: not marking them loaded lets a
    # later read attach them again, so a resumed session does not lose them.
    metadata = {**result.metadata, "preview": placeholder, "loaded": []}
    if "display" in metadata:
        metadata["display"] = {**metadata["display"], "text": placeholder}
    return evolve(result, metadata=metadata, secret_files=(result.title,))
