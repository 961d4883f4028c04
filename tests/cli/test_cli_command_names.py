"""Every `strata ...` command a message, docstring or README names is one the CLI has (not `strata exprt`)."""

from __future__ import annotations

import re
from pathlib import Path

import click

from strata_cli.main import cli

ROOT = Path(__file__).parents[2]
# A command as text names it: `strata WORD [WORD ...]`, inside backticks, up to the first option or argument.
NAMED = re.compile(r"`strata((?: [a-z][a-z-]*)*)")


def named_commands() -> dict[tuple[str, ...], str]:
    found: dict[tuple[str, ...], str] = {}
    sources = [*ROOT.glob("packages/*/src/**/*.py"), ROOT / "README.md", *ROOT.glob("packages/*/README.md")]
    for path in sources:
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            words = tuple(match.group(1).split())
            found.setdefault(words, str(path.relative_to(ROOT)))
    return found


def resolves(words: tuple[str, ...]) -> bool:
    """The words lead through real groups to a command; words after a leaf command are its arguments."""
    command: click.Command = cli
    with click.Context(cli) as ctx:
        for word in words:
            if not isinstance(command, click.Group):
                return True
            found = command.get_command(ctx, word)
            if found is None:
                return False
            command = found
    return True


def test_every_named_command_exists() -> None:
    named = named_commands()
    assert ("session", "import") in named  # the scan sees the messages it is meant to check
    wrong = {" ".join(("strata", *words)): where for words, where in named.items() if not resolves(words)}
    assert wrong == {}


def test_a_wrong_name_is_caught() -> None:
    assert not resolves(("exprt",)) and not resolves(("session", "exprt"))
    assert resolves(("session", "export")) and resolves(("export",)) and resolves(("run", "hello", "world"))
