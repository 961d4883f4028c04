"""What a finished tool call shows under its line: the diff of an edit or write, a command's output (and its exit
code when it failed), the files a glob or grep found. Each is cut to a few lines, with a count of what was left
out, so a run stays readable.

Pure functions of a completed tool part (no terminal, no rich): each line carries a style name that the
renderers turn into colour on a terminal and drop off it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from strata_cli.tool_lines import display_path
from strata_core import message as m

MAX_DIFF_LINES = 30
MAX_OUTPUT_LINES = 20
MAX_FILES = 10
INDENT = "  "
_DIFF_HEADERS = ("Index: ", "=====", "--- ", "+++ ", "\\ No newline")


@frozen
class DetailLine:
    """One line under a tool line, and how it is coloured (a rich style; empty for none)."""

    text: str
    style: str = ""


def tool_details(part: m.ToolPart, directory: Path) -> list[DetailLine]:
    """The lines under a finished call's line; none for a call that failed or has nothing to add."""
    state = part.state
    if not isinstance(state, m.ToolStateCompleted):
        return []
    metadata: Mapping[str, Any] = state.metadata or {}
    if part.tool in ("edit", "write", "apply_patch"):
        diff = metadata.get("diff")
        return compact_diff(diff) if isinstance(diff, str) else []
    if part.tool == "bash":
        output = metadata.get("output", state.output)
        shown = command_output(output) if isinstance(output, str) else []
        return shown + exit_code(metadata.get("exit"))
    if part.tool == "glob":
        return _files([line for line in state.output.splitlines() if line.startswith("/")], directory)
    if part.tool == "grep":
        found = [line[:-1] for line in state.output.splitlines() if line.startswith("/") and line.endswith(":")]
        return _files(found, directory)
    return []


def compact_diff(diff: str) -> list[DetailLine]:
    """A unified diff without its file headers: hunks, additions in green, removals in red, then a count of the
    lines left out past `MAX_DIFF_LINES`."""
    lines = [line for line in diff.splitlines() if not line.startswith(_DIFF_HEADERS)]
    shown = [DetailLine(INDENT + line, _diff_style(line)) for line in lines[:MAX_DIFF_LINES]]
    return shown + _more(len(lines) - len(shown), "line")


def command_output(output: str) -> list[DetailLine]:
    """A command's output, its first `MAX_OUTPUT_LINES` lines, then a count of the rest."""
    lines = output.rstrip("\n").splitlines()
    shown = [DetailLine(INDENT + line, "dim") for line in lines[:MAX_OUTPUT_LINES]]
    return shown + _more(len(lines) - len(shown), "line")


def exit_code(code: object) -> list[DetailLine]:
    """`exit code N` for a command that failed: shown to the person, who cannot tell failure from output alone.
    The model's tool result stays OpenCode's (output only), so the requests Strata sends match OpenCode's."""
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        return []
    return [DetailLine(f"{INDENT}exit code {code}", "red")]


def _files(paths: Sequence[str], directory: Path) -> list[DetailLine]:
    shown = [DetailLine(INDENT + display_path(path, directory), "dim") for path in paths[:MAX_FILES]]
    return shown + _more(len(paths) - len(shown), "file")


def _diff_style(line: str) -> str:
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return "cyan" if line.startswith("@@") else "dim"


def _more(count: int, noun: str) -> list[DetailLine]:
    if count <= 0:
        return []
    return [DetailLine(f"{INDENT}… {count} more {noun}" + ("" if count == 1 else "s"), "dim italic")]
