"""Text files as the edit and write tools see them: BOM kept aside, line endings known, changes as a diff.

Bytes that are not UTF-8 survive a read-modify-write unchanged (they travel as surrogate escapes), so an
edit to one line never mangles the rest of a Latin-1 file.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from attrs import frozen

BOM = "\ufeff"


@frozen
class TextFile:
    text: str
    """The content without its byte-order mark."""
    bom: bool


def split_bom(text: str) -> TextFile:
    if text.startswith(BOM):
        return TextFile(text[1:], True)
    return TextFile(text, False)


def with_bom(text: str, bom: bool) -> str:
    bare = split_bom(text).text
    return BOM + bare if bom else bare


MAX_EDIT_BYTES = 5 * 1024 * 1024
"""The largest file edit, write and apply_patch handle: a diff of more is neither readable nor cheap."""


def too_large(path: Path, size: int) -> str:
    return (
        f"{path} would be {size / 1024 / 1024:.1f} MB; edit, write and apply_patch handle files up to "
        f"{MAX_EDIT_BYTES // 1024 // 1024} MB. Write a smaller file, or generate large files with a command."
    )


def decode_text(data: bytes) -> TextFile:
    return split_bom(data.decode("utf-8", errors="surrogateescape"))


def encode_text(text: str, bom: bool) -> bytes:
    """Exactly `text` (no newline translation) as the bytes to write."""
    return with_bom(text, bom).encode("utf-8", errors="surrogateescape")


def normalize_line_endings(text: str) -> str:
    return text.replace("\r\n", "\n")


def line_ending(text: str) -> str:
    """The file's style: CRLF as soon as one CRLF appears, else LF."""
    return "\r\n" if "\r\n" in text else "\n"


def to_line_ending(text: str, ending: str) -> str:
    return text if ending == "\n" else text.replace("\n", ending)


_LINE = re.compile(r"[^\n]*\n|[^\n]+$")


def _lines_with_ends(text: str) -> list[str]:
    return _LINE.findall(text)


def unified_diff(path: str, old: str, new: str, context: int = 4) -> str:
    """A unified diff of two versions of `path`, in the shape jsdiff's `createTwoFilesPatch` gives."""
    out = [f"Index: {path}", "=" * 67, f"--- {path}", f"+++ {path}"]
    body = difflib.unified_diff(_lines_with_ends(old), _lines_with_ends(new), n=context, lineterm="")
    for index, line in enumerate(body):
        if index < 2:  # difflib's own ---/+++ header lines
            continue
        if line.startswith("@@"):
            out.append(line)
        elif line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.extend([line, "\\ No newline at end of file"])
    return "\n".join(out) + "\n"


def _is_change_line(line: str) -> bool:
    return line[:1] in ("+", "-", " ") and not line.startswith(("---", "+++"))


def trim_diff(diff: str) -> str:
    """The diff with the indentation common to every changed or context line removed (easier to read)."""
    lines = diff.split("\n")
    indents = [len(line[1:]) - len(line[1:].lstrip()) for line in lines if _is_change_line(line) and line[1:].strip()]
    shift = min(indents, default=0)
    if shift == 0:
        return diff
    return "\n".join(line[0] + line[1:][shift:] if _is_change_line(line) else line for line in lines)


def count_changes(old: str, new: str) -> tuple[int, int]:
    """(lines added, lines removed) between two texts."""
    matcher = difflib.SequenceMatcher(a=_lines_with_ends(old), b=_lines_with_ends(new), autojunk=False)
    added = removed = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed
