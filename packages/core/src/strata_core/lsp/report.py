"""Diagnostics as the model reads them after an edit, a write or a patch: OpenCode's exact text.

Only errors are shown, at most `MAX_PER_FILE` lines per file (then `... and N more`), each as
`ERROR [line:col] message` with 1-based positions, inside `<diagnostics file="PATH">`. Pure functions of
their values: the tools call them with what `LanguageServers.diagnostics()` holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from strata_core.lsp.values import ERROR, Diagnostic

MAX_PER_FILE = 20
MAX_OTHER_FILES = 5
"""A write reports errors of at most this many files besides its own."""

_SEVERITY = {1: "ERROR", 2: "WARN", 3: "INFO", 4: "HINT"}
THIS_FILE = "\n\nLSP errors detected in this file, please fix:\n"
OTHER_FILES = "\n\nLSP errors detected in other files:\n"


def pretty(diagnostic: Diagnostic) -> str:
    severity = _SEVERITY.get(diagnostic.severity, "ERROR")
    return f"{severity} [{diagnostic.line + 1}:{diagnostic.character + 1}] {diagnostic.message}"


def file_report(path: Path | str, diagnostics: Sequence[Diagnostic]) -> str:
    """The `<diagnostics>` block of one file's errors, or "" when it has none."""
    errors = [item for item in diagnostics if item.severity == ERROR]
    if not errors:
        return ""
    lines = "\n".join(pretty(item) for item in errors[:MAX_PER_FILE])
    more = len(errors) - MAX_PER_FILE
    suffix = f"\n... and {more} more" if more > 0 else ""
    return f'<diagnostics file="{path}">\n{lines}{suffix}\n</diagnostics>'


def edit_note(path: Path, diagnostics: Mapping[Path, Sequence[Diagnostic]]) -> str:
    """What an edit appends: the edited file's errors."""
    block = file_report(path, diagnostics.get(path, ()))
    return THIS_FILE + block if block else ""


def write_note(path: Path, diagnostics: Mapping[Path, Sequence[Diagnostic]]) -> str:
    """What a write appends: its file's errors and those of up to five other files, in the servers' order."""
    note, others = "", 0
    for file, items in diagnostics.items():
        current = file == path
        if not current and others >= MAX_OTHER_FILES:
            continue
        block = file_report(file, items)
        if not block:
            continue
        if current:
            note += THIS_FILE + block
        else:
            others += 1
            note += OTHER_FILES + block
    return note


def patch_note(paths: Sequence[Path], worktree: Path, diagnostics: Mapping[Path, Sequence[Diagnostic]]) -> str:
    """What apply_patch appends: each changed file's errors, headed by its path relative to the worktree."""
    note = ""
    for path in paths:
        block = file_report(path, diagnostics.get(path, ()))
        if block:
            note += f"\n\nLSP errors detected in {_relative(path, worktree)}, please fix:\n{block}"
    return note


def metadata(diagnostics: Mapping[Path, Sequence[Diagnostic]]) -> dict[str, list[dict[str, object]]]:
    """The diagnostics as a tool result's `metadata.diagnostics` keeps them (path -> LSP diagnostics)."""
    return {str(path): [item.as_json() for item in items] for path, items in diagnostics.items()}


def _relative(path: Path, worktree: Path) -> str:
    try:
        return str(path.relative_to(worktree))
    except ValueError:
        return str(path)
