"""Reading a Google-style docstring: its first paragraph, and the descriptions in its `Args` and `Attributes`.

Only what a tool's schema needs is read: the summary becomes the tool's description, each `name: text`
entry a parameter's (or a field's) description. Type hints written in the docstring (`name (int): ...`)
are skipped: the annotations are the source of truth for types.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping

from attrs import field, frozen

_PARAMETER_SECTIONS = frozenset({"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"})
_ATTRIBUTE_SECTIONS = frozenset({"attributes", "fields"})
_SECTION = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_ENTRY = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@frozen
class Docstring:
    summary: str = ""
    """The first paragraph, its lines joined by spaces."""
    parameters: Mapping[str, str] = field(factory=dict)
    """`Args:` entries by parameter name."""
    attributes: Mapping[str, str] = field(factory=dict)
    """`Attributes:` entries by field name (for attrs classes and TypedDicts)."""


def parse_docstring(text: str | None) -> Docstring:
    if not text:
        return Docstring()
    lines = inspect.cleandoc(text).splitlines()
    sections = _sections(lines)
    return Docstring(
        summary=_summary(lines),
        parameters=_merged(sections, _PARAMETER_SECTIONS),
        attributes=_merged(sections, _ATTRIBUTE_SECTIONS),
    )


def _summary(lines: list[str]) -> str:
    paragraph: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)


def _sections(lines: list[str]) -> dict[str, list[str]]:
    """The indented body of each top-level `Heading:` line, by lower-cased heading."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        heading = _SECTION.match(line)
        if heading is not None:
            current = sections.setdefault(heading.group(1).strip().lower(), [])
        elif line and not line[0].isspace():
            current = None  # back to prose: the section ended
        elif current is not None:
            current.append(line)
    return sections


def _merged(sections: Mapping[str, list[str]], names: frozenset[str]) -> dict[str, str]:
    entries: dict[str, str] = {}
    for name, body in sections.items():
        if name in names:
            entries.update(_entries(body))
    return entries


def _entries(body: list[str]) -> dict[str, str]:
    """`name (type): text` entries; deeper-indented lines continue the entry above them."""
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    if not indents:
        return {}
    entry_indent = min(indents)
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        match = _ENTRY.match(line.strip()) if indent == entry_indent else None
        if match is not None:
            current = entries.setdefault(match.group(1), [])
            if match.group(2):
                current.append(match.group(2).strip())
        elif current is not None:
            current.append(line.strip())
    return {name: " ".join(words) for name, words in entries.items()}
