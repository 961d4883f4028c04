"""What a config failure says: the file (and line:column when known), the key path, what was expected."""

from __future__ import annotations

from pathlib import Path

from strata_core.errors import StrataError


class ConfigError(StrataError):
    """A config file (or config value) Strata cannot use; the message says where and what was expected."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | None = None,
        line: int | None = None,
        column: int | None = None,
        key_path: str | None = None,
        expected: str | None = None,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.key_path = key_path
        """Where in the config the bad value sits, dotted (`compaction.reserved`, `agent.x.temperature`)."""
        self.expected = expected


class ConfigValueError(StrataError, ValueError):
    """A single config value of the wrong type or out of range; the structuring code adds where it was."""

    def __init__(self, expected: str, value: object, *, below: tuple[str, ...] = ()) -> None:
        super().__init__(f"expected {expected}, got {shown(value)}")
        self.expected = expected
        self.value = value
        self.below = below
        """The keys from where the error was caught down to the bad value (`("compaction", "reserved")`)."""

    def inside(self, key: str) -> ConfigValueError:
        """The same error, seen from the object that holds `key` (each enclosing block adds its key)."""
        self.below = (key, *self.below)
        return self


MISSING = object()
"""The value of a required key that is not there."""


def shown(value: object) -> str:
    """A config value as JSON, cut short: how the user wrote it, not how Python prints it."""
    import json
    from datetime import date

    if value is MISSING:
        return "nothing"
    if isinstance(value, date):
        # Only YAML frontmatter has dates; shown as JSON they would read as if they were text.
        return f"the date {value.isoformat()} (put it in quotes to keep it as text)"
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."
