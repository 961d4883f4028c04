"""A command whose escape sequences would erase the start of the permission question (`\\e[2K\\e[1G`) is shown
whole in a real terminal, so the person approves what they read; and `strata run`'s tool lines on stderr carry
no escape sequence from a file name or a command's output."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
ESC = "\x1b"


def test_the_permission_question_shows_an_erasing_command_whole(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    (cli.project / "important.txt").write_text("precious\n")
    command = f"rm -f important.txt; : '{ESC}[2K{ESC}[1Gbash ls -la'"
    server = scripted(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": command, "description": "list"}}]}, {"text": "No."}]
    )
    write_config(cli.project, {**mock_provider_config(server.base_url), "permission": {"bash": "ask"}})
    term = terminal()
    term.expect("build >")
    term.send("list the files\r")
    # The helper drops real escape sequences, so without the fix this reads `...important.txt, : 'bash ls -la'`.
    term.expect("Permission needed: bash rm -f important.txt, : '␛[2K␛[1Gbash ls -la'")
    term.expect("allow? [o/a/r]")
    term.send("r")
    term.expect("build >")
    assert (cli.project / "important.txt").exists()


def test_run_shows_escapes_in_tool_lines_and_outputs_and_keeps_json_events_exact(cli: Cli, scripted: Scripted) -> None:
    name = f"evil{ESC}[31mRED.txt"
    (cli.project / name).write_text("x\n")
    calls: list[dict[str, Any]] = [
        {"name": "read", "arguments": {"filePath": name}, "id": "r"},
        {"name": "bash", "arguments": {"command": "printf 'out\\033]0;TITLE\\007\\n'", "description": "t"}, "id": "b"},
    ]
    script: list[dict[str, Any]] = [{"tool_calls": calls}, {"text": "done"}]
    write_config(cli.project, mock_provider_config(scripted(script).base_url))
    done = cli("run", "go")
    assert done.returncode == 0, done.stderr
    assert ESC not in done.stderr and "\x07" not in done.stderr
    assert "→ Read evil␛[31mRED.txt · 1 line" in done.stderr
    assert "  out␛]0;TITLE␇" in done.stderr

    write_config(cli.project, mock_provider_config(scripted(script).base_url))
    events = [json.loads(line) for line in cli("run", "--format", "json", "go").stdout.splitlines()]
    tools = {e["part"]["tool"]: e["part"]["state"] for e in events if e["type"] == "tool_use"}
    assert tools["read"]["input"]["filePath"] == name  # data, not display: as the model sent it
    assert tools["bash"]["output"] == f"out{ESC}]0;TITLE\x07\n"
