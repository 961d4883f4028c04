"""The lines under a finished tool call: compact diffs, command output, the files a search found, each cut short."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from strata_cli.tool_details import MAX_DIFF_LINES, MAX_FILES, MAX_OUTPUT_LINES, DetailLine, tool_details
from strata_cli.tool_lines import describe
from strata_core import message as m

DIFF = (
    "Index: /w/a.py\n===================================================================\n"
    "--- /w/a.py\n+++ /w/a.py\n@@ -1,2 +1,2 @@\n print('hello')\n-print('bye')\n+print('see you')\n"
)


def part(tool: str, output: str = "", metadata: dict[str, Any] | None = None, failed: bool = False) -> m.ToolPart:
    state: m.ToolStateCompleted | m.ToolStateError
    if failed:
        state = m.ToolStateError(input={}, error="boom", time=m.PartTime(start=1, end=2))
    else:
        time = m.ToolCompletedTime(start=1, end=2)
        state = m.ToolStateCompleted(input={}, output=output, title="", metadata=metadata or {}, time=time)
    return m.ToolPart(id="prt_1", session_id="ses_1", message_id="msg_1", call_id="c", tool=tool, state=state)


def test_an_edit_shows_its_diff_without_file_headers_coloured_by_kind() -> None:
    assert tool_details(part("edit", metadata={"diff": DIFF}), Path("/w")) == [
        DetailLine("  @@ -1,2 +1,2 @@", "cyan"),
        DetailLine("   print('hello')", "dim"),
        DetailLine("  -print('bye')", "red"),
        DetailLine("  +print('see you')", "green"),
    ]


def test_a_long_diff_is_cut_with_a_count() -> None:
    diff = "@@ -0,0 +1,100 @@\n" + "".join(f"+line {n}\n" for n in range(100))
    lines = tool_details(part("write", metadata={"diff": diff}), Path("/w"))
    assert len(lines) == MAX_DIFF_LINES + 1
    assert lines[-1] == DetailLine(f"  … {101 - MAX_DIFF_LINES} more lines", "dim italic")


def test_a_command_shows_its_output_cut_with_a_count() -> None:
    output = "".join(f"out {n}\n" for n in range(MAX_OUTPUT_LINES + 1))
    lines = tool_details(part("bash", metadata={"output": output}), Path("/w"))
    assert lines[0] == DetailLine("  out 0", "dim") and lines[-1].text == "  … 1 more line"
    assert tool_details(part("bash", metadata={"output": ""}), Path("/w")) == []


def test_glob_and_grep_show_the_files_they_found_relative_to_the_project() -> None:
    found = "\n".join(f"/w/src/f{n}.py" for n in range(MAX_FILES + 2))
    lines = tool_details(part("glob", output=found), Path("/w"))
    assert lines[0].text == "  src/f0.py" and lines[-1].text == "  … 2 more files"
    grep = "Found 3 matches\n/w/a.py:\n  Line 1: x\n  Line 4: x\n/elsewhere/b.py:\n  Line 2: x\n"
    assert [d.text for d in tool_details(part("grep", output=grep), Path("/w"))] == ["  a.py", "  /elsewhere/b.py"]


def test_a_failed_call_and_other_tools_show_nothing_more() -> None:
    assert tool_details(part("edit", failed=True), Path("/w")) == []
    assert tool_details(part("read", output="<path>x</path>"), Path("/w")) == []


def test_read_and_edit_lines_say_how_much() -> None:
    whole = {"display": {"lineStart": 1, "lineEnd": 2, "totalLines": 2}}
    window = {"display": {"lineStart": 10, "lineEnd": 29, "totalLines": 120}}
    assert describe("read", {"filePath": "/w/a.py"}, Path("/w"), metadata=whole).title == "Read a.py · 2 lines"
    assert describe("read", {"filePath": "/w/a.py"}, Path("/w"), metadata=window).title == (
        "Read a.py · lines 10-29 of 120"
    )
    change = {"filediff": {"additions": 3, "deletions": 1}}
    assert describe("edit", {"filePath": "/w/a.py"}, Path("/w"), metadata=change).title == "Edit a.py · +3 -1"
