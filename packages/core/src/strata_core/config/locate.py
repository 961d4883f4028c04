"""Where a key path's value sits in a config file's text, so an error can say `file:line:column`.

The parsers give no positions for values (the stdlib's `json` none at all), and a config error is rare, so the
text is scanned again only when one is reported. The scanner knows just enough JSONC/JSON5 to keep its place:
strings in either quote, comments, unquoted keys, nesting; anything it cannot follow gives no position.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

_SPACE = " \t\r\n\ufeff"


def locate(text: str, keys: Sequence[str]) -> tuple[int, int] | None:
    """The 1-based line and column where the value at `keys` starts in `text`, or None if it is not found."""
    try:
        offset = _Scanner(text, tuple(keys)).find()
    except (IndexError, ValueError):
        return None
    if offset is None:
        return None
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


class _Scanner:
    def __init__(self, text: str, target: tuple[str, ...]) -> None:
        self.text = text
        self.target = target
        self.at = 0

    def find(self) -> int | None:
        return self._value(())

    def _value(self, path: tuple[str, ...]) -> int | None:
        """Scan the value starting here; the target's offset if it is this value or inside it."""
        self._skip()
        if path == self.target:
            return self.at
        char = self.text[self.at]
        if char == "{":
            return self._object(path)
        if char == "[":
            return self._array(path)
        if char in "\"'":
            self._string()
        else:
            while self.text[self.at] not in _SPACE + ",:]}/":
                self.at += 1
        return None

    def _object(self, path: tuple[str, ...]) -> int | None:
        self.at += 1
        while True:
            self._skip()
            if self.text[self.at] == "}":
                self.at += 1
                return None
            key = self._key()
            self._skip()
            if self.text[self.at] != ":":
                raise ValueError("expected a colon")
            self.at += 1
            if (found := self._value((*path, key))) is not None:
                return found
            self._after_item("}")

    def _array(self, path: tuple[str, ...]) -> int | None:
        self.at += 1
        index = 0
        while True:
            self._skip()
            if self.text[self.at] == "]":
                self.at += 1
                return None
            if (found := self._value((*path, str(index)))) is not None:
                return found
            self._after_item("]")
            index += 1

    def _after_item(self, closing: str) -> None:
        self._skip()
        if self.text[self.at] == ",":
            self.at += 1
        elif self.text[self.at] != closing:
            raise ValueError("expected a comma")

    def _key(self) -> str:
        if self.text[self.at] in "\"'":
            start = self.at
            self._string()
            quoted = self.text[start : self.at]
            return str(json.loads(quoted)) if quoted[0] == '"' else quoted[1:-1].replace("\\'", "'")
        start = self.at
        while self.text[self.at] not in _SPACE + ":":
            self.at += 1
        return self.text[start : self.at]

    def _string(self) -> None:
        quote = self.text[self.at]
        self.at += 1
        while self.text[self.at] != quote:
            self.at += 2 if self.text[self.at] == "\\" else 1
        self.at += 1

    def _skip(self) -> None:
        """Past whitespace and comments."""
        while True:
            if self.text[self.at] in _SPACE:
                self.at += 1
            elif self.text.startswith("//", self.at):
                end = self.text.find("\n", self.at)
                self.at = len(self.text) if end < 0 else end
            elif self.text.startswith("/*", self.at):
                self.at = self.text.index("*/", self.at) + 2
            else:
                return
