"""`strata run` shows what each tool did under its line: the diff of an edit or write, a command's output."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def script(work: str) -> list[dict[str, Any]]:
    long_file = "".join(f"line {n}\n" for n in range(60))
    return [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": f"{work}/hello.py", "content": "print('bye')\n"}}]},
        {
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {"filePath": f"{work}/hello.py", "oldString": "bye", "newString": "see you"},
                }
            ]
        },
        {"tool_calls": [{"name": "write", "arguments": {"filePath": f"{work}/long.txt", "content": long_file}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 30", "description": "Count"}}]},
        {"text": "All done."},
    ]


def test_diffs_and_output_are_shown_plain_off_a_terminal(cli: Cli, scripted: Scripted) -> None:
    server = scripted(script(str(cli.project)))
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--auto", "change things")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "All done.\n"  # the details go to stderr, like the tool lines
    lines = done.stderr.splitlines()
    edit = lines.index("← Edit hello.py · +1 -1")
    assert lines[edit + 1 : edit + 4] == ["  @@ -1 +1 @@", "  -print('bye')", "  +print('see you')"]
    assert lines[lines.index("← Write hello.py") + 2] == "  +print('bye')"
    assert "  … 31 more lines" in lines  # the 60-line write, cut after 30 diff lines (hunk header included)
    output = lines.index("$ seq 1 30")
    assert lines[output + 1 : output + 3] == ["  1", "  2"] and lines[output + 21] == "  … 10 more lines"
    assert "\x1b[" not in done.stderr


def test_diffs_are_coloured_on_a_terminal(cli: Cli, scripted: Scripted) -> None:
    server = scripted(script(str(cli.project)))
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli(
        "run", "--auto", "change things", extra_env={"FORCE_COLOR": "1", "TERM": "xterm-256color", "NO_COLOR": ""}
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b[31m  -print('bye')" in done.stderr and "\x1b[32m  +print('see you')" in done.stderr


def test_session_show_shows_a_commands_output_and_its_failed_exit_code(cli: Cli, scripted: Scripted) -> None:
    server = scripted(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo fine", "description": "Ok"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo broke; exit 3", "description": "Fail"}}]},
            {"text": "Done."},
        ]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--auto", "run both")
    assert done.returncode == 0, done.stderr
    assert "  exit code 3" in done.stderr.splitlines()
    [session] = json.loads(cli("session", "list", "--json").stdout)
    shown = cli("session", "show", session["id"]).stdout.splitlines()
    ok = shown.index("$ echo fine")
    assert shown[ok + 1] == "  fine" and shown[ok + 2] != "  exit code 0"
    failed = shown.index("$ echo broke; exit 3")
    assert shown[failed + 1 : failed + 3] == ["  broke", "  exit code 3"]
    assert "exit code" not in json.dumps(server.main_requests[2].body["messages"])  # the model sees OpenCode's result
