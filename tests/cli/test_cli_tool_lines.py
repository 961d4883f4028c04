"""Each tool call reads as one line a person can scan."""

from __future__ import annotations

from pathlib import Path

from strata_cli.tool_lines import describe

PROJECT = Path("/work/project")


def test_read_shows_the_path_relative_to_the_project() -> None:
    line = describe("read", {"filePath": "/work/project/sub/notes.txt"}, PROJECT)
    assert line.plain() == "→ Read sub/notes.txt"


def test_a_path_outside_the_project_stays_absolute() -> None:
    assert describe("edit", {"filePath": "/etc/hosts"}, PROJECT).plain() == "← Edit /etc/hosts"


def test_a_failed_call_is_marked_with_the_first_line_of_its_error() -> None:
    line = describe("read", {"filePath": "/work/project/missing.txt"}, PROJECT, error="File not found\nmore detail")
    assert line.failed
    assert line.plain() == "✗ Read missing.txt — File not found"


def test_searches_show_pattern_place_and_count() -> None:
    line = describe("grep", {"pattern": "TODO", "path": "/work/project/src"}, PROJECT, metadata={"matches": 3})
    assert line.plain() == '✱ Grep "TODO" in src · 3 matches'
    assert describe("glob", {"pattern": "*.py"}, PROJECT, metadata={"count": 1}).plain() == '✱ Glob "*.py" · 1 match'


def test_a_shell_command_shows_its_first_line() -> None:
    assert describe("bash", {"command": "pytest -q\necho done"}, PROJECT).plain() == "$ pytest -q"


def test_an_unknown_tool_shows_its_name_and_input() -> None:
    assert describe("mcp_lookup", {"q": "x"}, PROJECT).plain() == '⚙ mcp_lookup {"q": "x"}'


def test_a_long_target_is_cut_with_an_ellipsis() -> None:
    title = describe("bash", {"command": "x" * 500}, PROJECT).title
    assert len(title) <= 121 and title.endswith("…")
