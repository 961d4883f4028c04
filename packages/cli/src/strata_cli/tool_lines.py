"""One line per tool call, the way a person scans a run: `→ Read sub/notes.txt`, `$ pytest -q`, `✗ Edit a.py — ...`.

Pure functions of a tool part (no terminal, no rich), so the plain renderer, the interactive mode and the
tests share them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen

# tool id -> (icon, label, the input key that names its target)
_KNOWN: dict[str, tuple[str, str, str | None]] = {
    "read": ("→", "Read", "filePath"),
    "write": ("←", "Write", "filePath"),
    "edit": ("←", "Edit", "filePath"),
    "apply_patch": ("←", "Patch", None),
    "glob": ("✱", "Glob", "pattern"),
    "grep": ("✱", "Grep", "pattern"),
    "bash": ("$", "", "command"),
    "webfetch": ("%", "WebFetch", "url"),
    "websearch": ("◈", "Search", "query"),
    "task": ("#", "Task", "description"),
    "todowrite": ("#", "Todos", None),
    "skill": ("→", "Skill", "name"),
    "question": ("?", "Question", None),
}
_QUOTED = {"glob", "grep", "websearch", "skill"}
_PATHS = {"read", "write", "edit"}
MAX_TARGET = 120


@frozen
class ToolLine:
    """What to show for one finished tool call."""

    icon: str
    title: str
    failed: bool = False
    error: str = ""

    def plain(self) -> str:
        if self.failed:
            return f"✗ {self.title} — {self.error}" if self.error else f"✗ {self.title}"
        return f"{self.icon} {self.title}"


def display_path(value: str, directory: Path) -> str:
    """A path relative to the project when it is inside it (shorter, and what the person typed)."""
    path = Path(value)
    if not path.is_absolute():
        return value
    try:
        return str(path.relative_to(directory))
    except ValueError:
        return value


def _shorten(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= MAX_TARGET else first[: MAX_TARGET - 1] + "…"


def _target(tool: str, key: str | None, tool_input: Mapping[str, Any], directory: Path) -> str:
    if key is None:
        return ""
    value = tool_input.get(key)
    if not isinstance(value, str) or not value:
        return ""
    if tool in _PATHS:
        return display_path(value, directory)
    return f'"{_shorten(value)}"' if tool in _QUOTED else _shorten(value)


def _suffix(tool: str, tool_input: Mapping[str, Any], metadata: Mapping[str, Any], directory: Path) -> str:
    """Details after the target: where a search looked and how much it found, who a task went to."""
    extra = ""
    if tool in {"glob", "grep"}:
        where = tool_input.get("path")
        if isinstance(where, str) and where:
            extra += f" in {display_path(where, directory)}"
        count = metadata.get("count", metadata.get("matches"))
        if isinstance(count, int):
            extra += f" · {count} match" + ("" if count == 1 else "es")
    elif tool == "read":
        extra += _lines_read(metadata.get("display"))
    elif tool == "edit":
        change = metadata.get("filediff")
        if isinstance(change, Mapping) and isinstance(change.get("additions"), int):
            extra += f" · +{change['additions']} -{change.get('deletions', 0)}"
    elif tool == "task":
        agent = tool_input.get("subagent_type")
        if isinstance(agent, str) and agent:
            extra += f" ({agent})"
    elif tool == "todowrite":
        todos = tool_input.get("todos")
        if isinstance(todos, list):
            extra += f" · {len(todos)} item" + ("" if len(todos) == 1 else "s")
    return extra


def _lines_read(display: object) -> str:
    """` · lines 10-29 of 120` for part of a file, ` · 120 lines` for all of it (from read's `display`)."""
    if not isinstance(display, Mapping):
        return ""
    start, end, total = display.get("lineStart"), display.get("lineEnd"), display.get("totalLines")
    if not (isinstance(start, int) and isinstance(end, int) and isinstance(total, int)):
        return ""
    if start <= 1 and end >= total:
        return f" · {total} line" + ("" if total == 1 else "s")
    return f" · lines {start}-{end} of {total}"


def _generic(tool: str, tool_input: Mapping[str, Any]) -> str:
    shown = json.dumps(dict(tool_input), ensure_ascii=False, separators=(", ", ": "))
    return f"{tool} {_shorten(shown)}" if tool_input else tool


def describe(
    tool: str,
    tool_input: Mapping[str, Any],
    directory: Path,
    *,
    metadata: Mapping[str, Any] | None = None,
    error: str | None = None,
) -> ToolLine:
    """The line for a tool call; `error` marks it failed and carries the first line of what went wrong."""
    known = _KNOWN.get(tool)
    if known is None:
        icon, title = "⚙", _generic(tool, tool_input)
    else:
        icon, label, key = known
        target = _target(tool, key, tool_input, directory)
        title = " ".join(part for part in (label, target) if part)
        title += _suffix(tool, tool_input, metadata or {}, directory)
    if error is not None:
        return ToolLine(icon, title, failed=True, error=_shorten(error))
    return ToolLine(icon, title)
