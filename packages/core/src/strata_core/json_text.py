"""JSON text from outside (config files, tool arguments, stream chunks) parsed with a bound on nesting, and
with valid strings only.

The stdlib decoder recurses once per nested array or object and raises `RecursionError` near Python's
recursion limit; code that walks the value afterwards (merging, structuring, storing) recurses too. Anything
deeper than `MAX_NESTING` is refused here as a `JsonNestingError`, a `ValueError`, so every caller that
already reports invalid JSON for its one item (a config file, a tool call, a chunk) reports this the same way.

JSON may escape a lone UTF-16 surrogate (`"\\ud800"`), which the stdlib decodes into a `str` no encoder
accepts; `loads` replaces each with U+FFFD (`strata_core.text.valid_strings`), so a model's text, a tool
call's name or path, a request body's title never fails later when it is stored or shown.
"""

from __future__ import annotations

import json
import re
from typing import Any

from strata_core.errors import StrataError
from strata_core.text import holds_surrogates, valid_strings

MAX_NESTING = 256
"""Deeper than any real config, tool call or chunk; shallow enough that every later walk stays far from
Python's recursion limit."""

_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class JsonNestingError(StrataError, ValueError):
    """A JSON text nested deeper than `MAX_NESTING` arrays and objects."""

    def __init__(self) -> None:
        super().__init__(f"nested too deeply (more than {MAX_NESTING} levels of arrays and objects)")


def loads(text: str) -> Any:
    """`json.loads(text)`, refusing text nested deeper than `MAX_NESTING` with a `JsonNestingError`; every
    lone surrogate in a decoded string (or key) is U+FFFD."""
    check_nesting(text)
    try:
        value = json.loads(text)
    except RecursionError:  # only a caller already deep in its own stack gets here
        raise JsonNestingError() from None
    return with_valid_strings(value, text)


def with_valid_strings(value: Any, text: str) -> Any:
    """`value`, decoded from the JSON (or JSON5) `text`, with every lone surrogate in its strings U+FFFD; only
    walked when `text` holds a surrogate's escape."""
    return valid_strings(value) if _may_hold_surrogate(text) else value


def _may_hold_surrogate(text: str) -> bool:
    """A surrogate's escape in `text` (or the code point itself, in text a caller decoded with surrogateescape);
    the substring and ASCII checks keep the common chunk at C speed."""
    return ("\\u" in text and _SURROGATE_ESCAPE.search(text) is not None) or holds_surrogates(text)


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
