"""Text from outside made valid Unicode: lone UTF-16 surrogates become U+FFFD, so nothing downstream raises.

A Python `str` can hold code points no encoder accepts: the halves of a UTF-16 surrogate pair (U+D800 to
U+DFFF) on their own. They arrive from outside as a JSON escape (`"\\ud800"` in a model's stream, a tool
call's arguments, a request body), from `surrogateescape` decoding (a command-line argument, piped stdin or
a file name that is not UTF-8), or from a tool's output; the first write to SQLite, a file or a terminal
then fails with `UnicodeEncodeError`. Every such edge passes its text through `valid_text` (or a decoded
JSON value through `valid_strings`) once, where it comes in:

    from strata_core.text import valid_text, valid_strings
    valid_text("hello \\ud800 world")        # "hello \\ufffd world"
    valid_strings({"path": "a\\udc80.txt"})  # {"path": "a\\ufffd.txt"}

A pair that is split into two code points is joined into the character it encodes; only what stands alone
is replaced, one U+FFFD per code point, as a UTF-16 decoder replaces it. Valid text is returned unchanged,
the same object, after one scan.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (and split pairs joined); valid text as it is."""
    if not holds_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def holds_surrogates(text: str) -> bool:
    """Whether `text` holds a surrogate code point (what `valid_text` changes); ASCII text is answered at once."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def valid_strings(value: Any) -> Any:
    """A copy of a JSON-like value (dicts, lists, tuples, strings, numbers) with `valid_text` applied to
    every string in it, keys included; other values are kept as they are."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_text(key) if isinstance(key, str) else key: valid_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [valid_strings(item) for item in value]
    if isinstance(value, tuple):
        return tuple(valid_strings(item) for item in value)
    return value
