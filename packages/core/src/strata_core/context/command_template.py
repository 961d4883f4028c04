"""A command's template filled in, as OpenCode's `SessionPrompt.command` does (reference 16.3), and `@` mentions.

Pure text functions, so each rule is tested with plain strings: arguments are split like a shell would (quoted
words kept whole, quotes dropped), `$1..$n` take the arguments by position with the highest placeholder taking
all the rest, `$ARGUMENTS` takes the argument text as typed, and a template with neither gets the arguments
appended after a blank line. `` !`cmd` `` is replaced by the command's output (run by the caller). An `@name`
mention names a file or directory when `mentioned_path` finds one (the only function here that looks at disk).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

ARGUMENT = re.compile(r"""(?:\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+)""", re.IGNORECASE)
PLACEHOLDER = re.compile(r"\$(\d+)")
QUOTE_AT_END = re.compile(r"""^["']|["']$""")
SHELL = re.compile(r"!`([^`]+)`")
MENTION = re.compile(r"(?<![\w`])@(\.?[^\s`,.]*(?:\.[^\s`,.]+)*)")
"""OpenCode's `@name` pattern (`P/config/markdown.ts`): a trailing `.` or `,` ends the name, `a@b` is no mention."""


def split_arguments(text: str) -> list[str]:
    """The argument words: quoted strings and `[Image N]` kept whole, the surrounding quotes removed."""
    return [QUOTE_AT_END.sub("", word) for word in ARGUMENT.findall(text)]


def fill_arguments(template: str, arguments: str, words: Sequence[str] | None = None) -> str:
    """`$1..$n` and `$ARGUMENTS` replaced; the arguments appended when the template uses neither. `words`
    are the arguments one by one where the caller has them so (a shell's argv); else `arguments` is split."""
    words = list(words) if words is not None else split_arguments(arguments)
    positions = [int(number) for number in PLACEHOLDER.findall(template)]
    last = max(positions, default=0)

    def positional(match: re.Match[str]) -> str:
        position = int(match.group(1))
        index = position - 1
        if index >= len(words):
            return ""
        # The last placeholder swallows the remaining words, so `/fix $1` with three words keeps all three.
        return " ".join(words[index:]) if position == last else words[index]

    filled = PLACEHOLDER.sub(positional, template).replace("$ARGUMENTS", arguments)
    if not positions and "$ARGUMENTS" not in template and arguments.strip():
        filled += "\n\n" + arguments
    return filled


def template_hints(template: str) -> list[str]:
    """The placeholders a template takes, as OpenCode lists them for a client (`hints`): each `$N` once, in
    text order of their names (`$1`, `$10`, `$2`), then `$ARGUMENTS` when it is used."""
    numbered = sorted({f"${number}" for number in PLACEHOLDER.findall(template)})
    return numbered + (["$ARGUMENTS"] if "$ARGUMENTS" in template else [])


def shell_commands(template: str) -> list[str]:
    """The commands of the template's `` !`cmd` `` snippets, in order."""
    return SHELL.findall(template)


def replace_shell(template: str, outputs: Sequence[str]) -> str:
    """Each `` !`cmd` `` replaced by its output, in order."""
    pending = iter(outputs)
    return SHELL.sub(lambda _: next(pending, ""), template)


def mentions(text: str) -> list[str]:
    """The names after `@` in `text`, each once, in order (files, directories or agents: the caller decides)."""
    return list(dict.fromkeys(name for name in MENTION.findall(text) if name))


def mentioned_path(name: str, directory: Path, worktree: Path, home: Path) -> Path | None:
    """The existing file or directory `@name` refers to: `~/...` in the home directory, otherwise relative to
    the directory Strata runs in, then to the worktree (OpenCode looks only in the worktree); None if none."""
    candidates = [home / name[2:]] if name.startswith("~/") else [directory / name, worktree / name]
    return next((path for path in candidates if path.exists()), None)
