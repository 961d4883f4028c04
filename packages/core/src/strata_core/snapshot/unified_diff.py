"""A file's change as OpenCode's `summary.diffs[].patch` holds it: one unified-diff hunk over the whole file.

OpenCode formats these with the `diff` npm package and unlimited context, so every line of the file is in
the one hunk; the header names the file after `Index:` and under a rule of 67 `=`, and each file-name line
ends in a tab (an empty header). Clients (OpenCode's TUI and web app) parse this text, so its layout is
kept exactly; the line matching is Python's (`difflib`), which can pair repeated lines differently from
jsdiff's Myers diff while describing the same change.
"""

from __future__ import annotations

import difflib

RULE = "=" * 67
NO_NEWLINE = "\\ No newline at end of file"


def whole_file_patch(name: str, before: str, after: str) -> str:
    """The change from `before` to `after` of the file `name`, the whole file in one hunk."""
    header = [f"Index: {name}", RULE, f"--- {name}\t", f"+++ {name}\t"]
    if before == after:
        return "\n".join(header) + "\n"
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    lines = _hunk_lines(old, new)
    old_start = 1 if old else 0
    new_start = 1 if new else 0
    hunk = f"@@ -{old_start},{len(old)} +{new_start},{len(new)} @@"
    return "\n".join([*header, hunk, *lines]) + "\n"


def _hunk_lines(old: list[str], new: list[str]) -> list[str]:
    """Every line of both sides, marked ` `, `-` or `+`, with the no-newline marker after a last line
    that lacks its newline (once per side, once in all when both sides share that last line)."""
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, old_from, old_to, new_from, new_to in matcher.get_opcodes():
        if tag == "equal":
            for index in range(old_from, old_to):
                _add(lines, " ", old[index], last=index == len(old) - 1 and new_from + index - old_from == len(new) - 1)
            continue
        for index in range(old_from, old_to):
            _add(lines, "-", old[index], last=index == len(old) - 1)
        for index in range(new_from, new_to):
            _add(lines, "+", new[index], last=index == len(new) - 1)
    return lines


def _add(lines: list[str], mark: str, line: str, *, last: bool) -> None:
    text = line.removesuffix("\n")
    lines.append(mark + text)
    if last and not line.endswith("\n"):
        lines.append(NO_NEWLINE)
