"""The README's table of OpenCode's commands gives every verb of `opencode --help` (1.18.33) a Strata
equivalent or a reason, and every `strata` command it names exists."""

from __future__ import annotations

import re
from pathlib import Path

import click

from strata_cli.main import cli

README = Path(__file__).resolve().parents[2] / "README.md"
# `opencode --help` of OpenCode 1.18.33: its commands and its global flags.
OPENCODE_VERBS = {
    "[project]", "run", "attach", "serve", "web", "models", "providers", "agent", "mcp", "session", "export",
    "import", "stats", "debug", "db", "completion", "acp", "upgrade", "uninstall", "github", "pr", "plugin",
}  # fmt: skip
OPENCODE_FLAGS = {"--print-logs", "--log-level", "--pure", "--prompt", "--mini", "--no-replay", "--replay-limit"}


def table_rows() -> list[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("### OpenCode's commands in Strata", 1)[1].split("\n### ", 1)[0]
    rows = [line.split(" | ", 1) for line in section.splitlines() if line.startswith("| `")]
    return [(left.removeprefix("| "), right.removesuffix(" |")) for left, right in rows]


def test_every_opencode_verb_and_flag_has_a_row() -> None:
    named = " ".join(left for left, _ in table_rows())
    verbs = {verb for verb in OPENCODE_VERBS if f"`opencode {verb}" in named or f", `{verb}" in named}
    assert verbs == OPENCODE_VERBS
    assert {flag for flag in OPENCODE_FLAGS if f"`{flag}`" in named} == OPENCODE_FLAGS


def test_each_row_gives_a_strata_command_or_a_reason() -> None:
    for left, right in table_rows():
        assert "`strata" in right or "because" in right, left


def test_the_strata_commands_the_table_names_exist() -> None:
    with click.Context(cli) as ctx:
        for _, right in table_rows():
            for name in re.findall(r"`strata ([a-z]+)", right):
                assert cli.get_command(ctx, name) is not None, name
