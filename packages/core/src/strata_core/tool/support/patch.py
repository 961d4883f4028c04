"""The patch language of the `apply_patch` tool: parsing it, and computing a file's new text from it.

```
*** Begin Patch
*** Add File: path        then `+` lines: the new file
*** Delete File: path
*** Update File: path
*** Move to: new/path     (optional)
@@ context line           (optional) then ` ` kept, `-` removed, `+` added lines
*** End of File           (optional) the chunk sits at the end of the file
*** End Patch
```

Pure functions only; the tool does the I/O. Matching follows OpenCode 1.18.33 (exact, then ignoring trailing
whitespace, then all surrounding whitespace, then typographic punctuation). Two deliberate differences, both
following Codex (whose format this is): an empty line inside a chunk is an empty context line, and a first
chunk may start without `@@`; OpenCode drops both, which silently loses the change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

from attrs import frozen

from strata_core.errors import StrataError
from strata_core.tool.support.file_text import line_ending, normalize_line_endings, split_bom, to_line_ending

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File:", "*** Delete File:", "*** Update File:", "*** Move to:"
END_OF_FILE = "*** End of File"
_HEREDOC = re.compile(r"^(?:cat\s+)?<<['\"]?(\w+)['\"]?\s*\n([\s\S]*?)\n\1\s*$")


class PatchError(StrataError, ValueError):
    """The patch cannot be read or does not fit the file; the message says where."""


@frozen
class Chunk:
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    context: str | None = None
    end_of_file: bool = False


@frozen
class Hunk:
    kind: Literal["add", "delete", "update"]
    path: str
    contents: str = ""
    """For `add`: the new file's text."""
    move_path: str | None = None
    chunks: tuple[Chunk, ...] = ()


def _unwrap_heredoc(text: str) -> str:
    match = _HEREDOC.match(text)
    return match.group(2) if match else text


def _add_contents(lines: list[str], index: int) -> tuple[str, int]:
    added: list[str] = []
    while index < len(lines) and not lines[index].startswith("***"):
        if lines[index].startswith("+"):
            added.append(lines[index][1:])
        index += 1
    return "\n".join(added), index


def _chunk_body(lines: list[str], index: int, context: str | None) -> tuple[Chunk, int]:
    old: list[str] = []
    new: list[str] = []
    end_of_file = False
    while index < len(lines) and not lines[index].startswith("@@"):
        line = lines[index]
        if line == END_OF_FILE:
            end_of_file = True
            index += 1
            break
        if line.startswith("***"):
            break
        if line.startswith(" ") or line == "":
            old.append(line[1:])
            new.append(line[1:])
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        index += 1
    return Chunk(tuple(old), tuple(new), context or None, end_of_file), index


def _update_chunks(lines: list[str], index: int) -> tuple[list[Chunk], int]:
    chunks: list[Chunk] = []
    while index < len(lines) and not lines[index].startswith("***"):
        if lines[index].startswith("@@"):
            chunk, index = _chunk_body(lines, index + 1, lines[index][2:].strip())
        elif not chunks and lines[index][:1] in (" ", "-", "+"):
            chunk, index = _chunk_body(lines, index, None)
        else:
            index += 1
            continue
        chunks.append(chunk)
    return chunks, index


def parse_patch(text: str) -> list[Hunk]:
    lines = _unwrap_heredoc(text.strip()).split("\n")
    stripped = [line.strip() for line in lines]
    if BEGIN not in stripped or END not in stripped or stripped.index(BEGIN) >= stripped.index(END):
        raise PatchError("Invalid patch format: missing Begin/End markers")
    index, end = stripped.index(BEGIN) + 1, stripped.index(END)
    hunks: list[Hunk] = []
    while index < end:
        line = lines[index]
        if line.startswith(ADD) and line[len(ADD) :].strip():
            contents, index = _add_contents(lines, index + 1)
            hunks.append(Hunk("add", line[len(ADD) :].strip(), contents=contents))
        elif line.startswith(DELETE) and line[len(DELETE) :].strip():
            hunks.append(Hunk("delete", line[len(DELETE) :].strip()))
            index += 1
        elif line.startswith(UPDATE) and line[len(UPDATE) :].strip():
            index += 1
            move = None
            if index < len(lines) and lines[index].startswith(MOVE):
                move, index = lines[index][len(MOVE) :].strip(), index + 1
            chunks, index = _update_chunks(lines, index)
            hunks.append(Hunk("update", line[len(UPDATE) :].strip(), move_path=move, chunks=tuple(chunks)))
        else:
            index += 1
    return hunks


# ------------------------------------------------------------------------------------------- applying

_PUNCTUATION = str.maketrans(
    {**dict.fromkeys("\u2018\u2019\u201a\u201b", "'"), **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
     **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015", "-"), "\u2026": "...", "\u00a0": " "}
)  # fmt: skip

Same = Callable[[str, str], bool]
_COMPARISONS: tuple[Same, ...] = (
    lambda a, b: a == b,
    lambda a, b: a.rstrip() == b.rstrip(),
    lambda a, b: a.strip() == b.strip(),
    lambda a, b: a.strip().translate(_PUNCTUATION) == b.strip().translate(_PUNCTUATION),
)


def _find_with(lines: Sequence[str], wanted: Sequence[str], start: int, same: Same, end_of_file: bool) -> int:
    def fits(at: int) -> bool:
        return all(same(lines[at + k], wanted[k]) for k in range(len(wanted)))

    last = len(lines) - len(wanted)
    if end_of_file and last >= start and fits(last):
        return last
    return next((at for at in range(start, last + 1) if fits(at)), -1)


def seek(lines: Sequence[str], wanted: Sequence[str], start: int, end_of_file: bool = False) -> int:
    """Where `wanted` starts at or after `start`, trying ever looser comparisons; -1 when nowhere."""
    if not wanted:
        return -1
    for same in _COMPARISONS:
        found = _find_with(lines, wanted, start, same, end_of_file)
        if found != -1:
            return found
    return -1


Replacement = tuple[int, int, tuple[str, ...]]


def _replacements(lines: list[str], path: str, chunks: Sequence[Chunk]) -> list[Replacement]:
    result: list[Replacement] = []
    cursor = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seek(lines, [chunk.context], cursor)
            if found == -1:
                raise PatchError(f"Failed to find context '{chunk.context}' in {path}")
            cursor = found + 1
        if not chunk.old_lines:  # pure addition: at the end, before a final blank line
            result.append((len(lines) - 1 if lines and lines[-1] == "" else len(lines), 0, chunk.new_lines))
            continue
        old, new = chunk.old_lines, chunk.new_lines
        found = seek(lines, old, cursor, chunk.end_of_file)
        if found == -1 and old[-1] == "":
            # A trailing blank line in the chunk often stands for the file's final newline.
            old, new = old[:-1], new[:-1] if new and new[-1] == "" else new
            found = seek(lines, old, cursor, chunk.end_of_file)
        if found == -1:
            raise PatchError(f"Failed to find expected lines in {path}:\n" + "\n".join(chunk.old_lines))
        result.append((found, len(old), new))
        cursor = found + len(old)
    return sorted(result, key=lambda item: item[0])


@frozen
class Updated:
    content: str
    bom: bool


def updated_contents(path: str, chunks: Sequence[Chunk], original: str) -> Updated:
    """The file's text after the chunks are applied (always ending with a newline, in the file's line endings)."""
    current = split_bom(original)
    ending = line_ending(current.text)
    lines = normalize_line_endings(current.text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for start, length, new in reversed(_replacements(lines, path, chunks)):
        lines[start : start + length] = new
    if not lines or lines[-1] != "":
        lines.append("")
    result = split_bom("\n".join(lines))
    return Updated(to_line_ending(result.text, ending), current.bom or result.bom)
