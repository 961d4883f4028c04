"""Markdown files with YAML frontmatter: agents, commands and skills are written this way.

Parsing follows OpenCode's `ConfigMarkdown.parse`: try strict YAML first; if that fails, retry once with
`key: value: with colons` lines turned into block scalars (other tools accept such frontmatter, so users have
files like it); if the frontmatter is still broken, raise `MarkdownFrontmatterError` with the file and the line
in that file, never a bare YAML traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from attrs import frozen

from strata_core.errors import StrataError

# A frontmatter block must open on the file's first line, as gray-matter requires, and close on a `---` line.
_OPENING = re.compile(r"\A---[ \t]*\r?\n")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^---[ \t]*\r?$", re.DOTALL | re.MULTILINE)
_KEY_VALUE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*): +([A-Za-z].*?) *")
_YAML_WORDS = frozenset(
    word for base in ("yes", "no", "true", "false", "on", "off", "null") for word in (base, base.title(), base.upper())
)
"""Plain words YAML 1.1 (PyYAML) reads as booleans or null rather than strings."""


@cache
def _yaml() -> tuple[Any, type[Exception]]:
    """python-frontmatter's YAML handler and PyYAML's error class (PyYAML has no type stubs in the lock)."""
    # Imported on the first file with frontmatter: PyYAML and python-frontmatter cost ~10 ms to import, which
    # every `strata` start-up would pay even when the project has no agent, command or skill files.
    import yaml  # type: ignore[import-untyped]
    from frontmatter.default_handlers import YAMLHandler

    return YAMLHandler(), yaml.YAMLError


@frozen
class MarkdownDocument:
    """A parsed markdown file: its frontmatter data and its body (stripped of surrounding whitespace)."""

    data: Mapping[str, Any]
    body: str


class MarkdownFrontmatterError(StrataError, ValueError):
    """Frontmatter that is not valid YAML even after the lenient retry."""

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: invalid YAML frontmatter: {message}")
        self.path = path
        self.line = line
        self.message = message


def parse_markdown(path: Path) -> MarkdownDocument:
    """Read and parse a markdown file with optional YAML frontmatter."""
    return parse_markdown_text(path.read_text(encoding="utf-8-sig"), path)


def parse_markdown_text(text: str, path: Path) -> MarkdownDocument:
    """Parse markdown text; `path` is only used in error messages."""
    if not _OPENING.match(text):
        return MarkdownDocument(data={}, body=text.strip())
    match = _FRONTMATTER.match(text)
    if match is None:
        raise MarkdownFrontmatterError(path, 1, "the frontmatter opened here is never closed by a `---` line")
    simple = simple_frontmatter(match.group(1))
    if simple is not None:
        return MarkdownDocument(data=simple, body=text[match.end() :].strip())
    _, yaml_error = _yaml()
    try:
        return _parse_strict(text, path)
    except yaml_error:
        pass
    sanitized, line_of = sanitize_frontmatter(text)
    try:
        return _parse_strict(sanitized, path)
    except yaml_error as error:
        raise _frontmatter_error(path, error, line_of) from error


def simple_frontmatter(frontmatter: str) -> dict[str, str] | None:
    """Frontmatter made only of `key: text` lines that YAML reads as plain strings, read without PyYAML.

    Most agent and skill files (the built-in skill among them) need nothing more, and PyYAML costs ~11 ms to
    import. Only a conservative subset qualifies, so the result is what PyYAML would give: one key and one
    value per line, the value starting with a letter, with no `: ` or ` #` inside, not ending in `:`, nothing
    unprintable (tabs and carriage returns included), and neither key nor value a YAML 1.1 boolean or null
    word. Anything else returns None and goes to PyYAML.
    """
    lines = frontmatter.split("\n")
    if lines[-1] == "":
        lines.pop()
    data: dict[str, str] = {}
    for line in lines:
        match = _SIMPLE_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if key in _YAML_WORDS or value in _YAML_WORDS or not value.isprintable():
            return None
        if ": " in value or " #" in value or value.endswith(":"):
            return None
        data[key] = value
    return data or None


def _parse_strict(text: str, path: Path) -> MarkdownDocument:
    match = _FRONTMATTER.match(text)
    assert match is not None  # checked by the caller; sanitizing keeps both delimiters
    frontmatter, body = match.group(1), text[match.end() :]
    handler, yaml_error = _yaml()
    data = handler.load(frontmatter)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        # Raised as a YAML error so it gets the same lenient retry and the same error message.
        raise yaml_error(f"expected `key: value` lines, got a {type(data).__name__}")
    check_expansion(data, path, limit=2 * len(frontmatter) + EXPANSION_ALLOWANCE)
    return MarkdownDocument(data={str(k): v for k, v in data.items()}, body=body.strip())


EXPANSION_ALLOWANCE = 1_000_000
"""How much larger than its text (in values and characters) frontmatter may grow by repeating aliases."""
MAX_FRONTMATTER_DEPTH = 256
"""As for JSON config (`json_text.check_nesting`): code walking the values recurses once per level."""


def check_expansion(data: object, path: Path, *, limit: int) -> None:
    """Refuse parsed YAML that grows past `limit` as its aliases expand, never ends, or nests too deeply.

    PyYAML shares one object per anchor, so ten aliases to a list of ten aliases parse instantly, but anything
    that walks the values (JSON encoding, merging, printing) meets every copy: eight such levels are 43 million
    values. The size is counted once per shared object, so the count itself stays as small as the text.
    """

    def refuse(problem: str) -> MarkdownFrontmatterError:
        return MarkdownFrontmatterError(path, None, problem)

    _expanded_size(data, 0, {}, set(), limit, refuse)


def _expanded_size(
    value: object,
    depth: int,
    sizes: dict[int, int],
    open_ids: set[int],
    limit: int,
    refuse: Callable[[str], Exception],
) -> int:
    if isinstance(value, str | bytes):
        return 1 + len(value)
    if not isinstance(value, dict | list | tuple | set | frozenset):
        return 1
    if id(value) in sizes:
        return sizes[id(value)]
    if id(value) in open_ids:
        raise refuse("an alias (`*name`) refers to the value that contains it, so the value never ends")
    if depth >= MAX_FRONTMATTER_DEPTH:
        raise refuse(f"values nested more than {MAX_FRONTMATTER_DEPTH} levels deep")
    open_ids.add(id(value))
    total = 1
    for item in [*value.keys(), *value.values()] if isinstance(value, dict) else value:
        total += _expanded_size(item, depth + 1, sizes, open_ids, limit, refuse)
        if total > limit:
            raise refuse(
                "its aliases (`*name`) repeat values until it grows past a million values and characters; "
                "write the repeated values out, or repeat less"
            )
    open_ids.discard(id(value))
    sizes[id(value)] = total
    return total


def sanitize_frontmatter(text: str) -> tuple[str, list[int]]:
    """OpenCode's fallback: unquoted top-level values that contain `:` become `|-` block scalars.

    Returns the new text and, for each of its lines, the 1-based line of the original text it came from,
    so an error in the retried text still points at the user's line.
    """
    match = _FRONTMATTER.match(text)
    lines = text.split("\n")
    line_of = list(range(1, len(lines) + 1))
    if match is None:
        return text, line_of
    # 0-based indexes of the frontmatter lines, between the two `---` lines.
    first, last = 1, match.group(1).count("\n")
    out_lines, out_map = lines[:first], line_of[:first]
    for index in range(first, last + 1):
        for new_line in _sanitize_line(lines[index]):
            out_lines.append(new_line)
            out_map.append(index + 1)
    out_lines += lines[last + 1 :]
    out_map += line_of[last + 1 :]
    return "\n".join(out_lines), out_map


def _sanitize_line(line: str) -> list[str]:
    stripped = line.strip()
    # Comments, blank lines and indented continuations are left alone.
    if not stripped or stripped.startswith("#") or line[:1].isspace():
        return [line]
    match = _KEY_VALUE.match(line.rstrip("\r"))
    if match is None:
        return [line]
    key, value = match.group(1), match.group(2).strip()
    if value in ("", ">", "|") or value.startswith(("'", '"')) or ":" not in value:
        return [line]
    return [f"{key}: |-", f"  {value}"]


def _frontmatter_error(path: Path, error: Exception, line_of: list[int]) -> MarkdownFrontmatterError:
    problem = _file_position(getattr(error, "problem_mark", None), line_of)
    if problem is None:
        return MarkdownFrontmatterError(path, None, str(error))
    line, column = problem
    message = f"{getattr(error, 'problem', None) or error} at column {column}"
    context, started = getattr(error, "context", None), _file_position(getattr(error, "context_mark", None), line_of)
    if context and started:
        # The context usually points at the real mistake, e.g. the line where an unclosed `[` opened.
        message += f" ({context} on line {started[0]})"
    return MarkdownFrontmatterError(path, line, message)


def _file_position(mark: object, line_of: list[int]) -> tuple[int, int] | None:
    """A YAML mark as a 1-based (line, column) of the file; duck-typed because libyaml has its own Mark class."""
    line, column = getattr(mark, "line", None), getattr(mark, "column", None)
    if not isinstance(line, int) or not isinstance(column, int):
        return None
    # The YAML text starts on the text's second line, right after the opening `---`.
    return line_of[min(line + 1, len(line_of) - 1)], column + 1
