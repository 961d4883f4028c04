"""JSON text from outside (config files, tool arguments, stream chunks) parsed with a bound on nesting.

The stdlib decoder recurses once per nested array or object and raises `RecursionError` near Python's
recursion limit; code that walks the value afterwards (merging, structuring, storing) recurses too. Anything
deeper than `MAX_NESTING` is refused here as a `JsonNestingError`, a `ValueError`, so every caller that
already reports invalid JSON for its one item (a config file, a tool call, a chunk) reports this the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

from strata_core.errors import StrataError

MAX_NESTING = 256
"""Deeper than any real config, tool call or chunk; shallow enough that every later walk stays far from
Python's recursion limit."""

_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


class JsonNestingError(StrataError, ValueError):
    """A JSON text nested deeper than `MAX_NESTING` arrays and objects."""

    def __init__(self) -> None:
        super().__init__(f"nested too deeply (more than {MAX_NESTING} levels of arrays and objects)")


def loads(text: str) -> Any:
    """`json.loads(text)`, refusing text nested deeper than `MAX_NESTING` with a `JsonNestingError`."""
    check_nesting(text)
    try:
        return json.loads(text)
    except RecursionError:  # only a caller already deep in its own stack gets here
        raise JsonNestingError() from None


def check_nesting(text: str) -> None:
    """Raises `JsonNestingError` when brackets outside strings nest deeper than `MAX_NESTING`."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return  # cannot nest that deep: the common case costs two C-speed counts
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise JsonNestingError()
        elif token in "]}":
            depth -= 1


def tool_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments as an object, or None and why not. Empty arguments are an empty object."""
    if not raw.strip():
        return {}, None
    try:
        value = loads(raw)
    except ValueError as exc:
        return None, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, None
