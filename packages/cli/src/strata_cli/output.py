"""Plain output helpers for commands that print data (JSON or aligned text) without needing rich."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import click

# Control characters shown as their Unicode pictures (ESC as `␛`), C1 controls and bidirectional overrides as
# escapes: a terminal obeys them, so a command, file name or output holding them could move the cursor, erase
# the line, set the window title or reorder what is read, and show something other than what it is.
_SHOWN = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
_SHOWN |= {code: f"\\x{code:02x}" for code in range(0x80, 0xA0)}
_SHOWN |= {code: f"\\u{code:04x}" for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
_SHOWN_IN_LINES = {code: shown for code, shown in _SHOWN.items() if chr(code) not in "\t\n"}
_SHOWN_IN_LINE = {code: shown for code, shown in _SHOWN.items() if chr(code) != "\t"}


def visible(text: str, *, newlines: bool = True) -> str:
    """`text` as it may reach a terminal: every control character shown rather than obeyed (tabs kept, and
    newlines unless `newlines` is False, for a line whose breaks would themselves mislead, like a question)."""
    return text.translate(_SHOWN_IN_LINES if newlines else _SHOWN_IN_LINE)


def echo_json(value: Any) -> None:
    """Pretty JSON on stdout, keys in the order given, non-ASCII kept readable."""
    import json  # here: `strata --help` imports this module (through the commands it lists) and prints no JSON

    click.echo(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def echo_fields(fields: Mapping[str, object]) -> None:
    """`name  value` lines with the values aligned."""
    width = max((len(name) for name in fields), default=0)
    for name, value in fields.items():
        click.echo(f"{name.ljust(width)}  {value}")


def echo_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain aligned table (no colours: it is often piped), its cells `visible` on one line each (a session
    title is the model's writing)."""
    cells = [[str(c) for c in headers], *[[visible(str(c), newlines=False) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())


def one_line(text: str, limit: int = 80) -> str:
    """The first line of a description, cut to `limit` characters, for one table row."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
