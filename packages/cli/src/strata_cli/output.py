"""Plain output helpers for commands that print data (JSON or aligned text) without needing rich."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import click


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
    """A plain aligned table (no colours: it is often piped)."""
    cells = [[str(c) for c in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        click.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())


def one_line(text: str, limit: int = 80) -> str:
    """The first line of a description, cut to `limit` characters, for one table row."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
