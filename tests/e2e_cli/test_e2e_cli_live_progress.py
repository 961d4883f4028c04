"""A tool shows while it runs: its line appears when it starts, with the seconds ticking on a terminal, in
`strata run` and in the interactive mode; piped output and `--format json` get nothing extra.

The tool is a shell command that waits for a file the test creates once it has seen the line tick, so the test
watches a tool that is really still running, without sleeping itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
WAIT = "while [ ! -f go ]; do sleep 0.05; done; echo released"


def waiting_tool(cli: Cli, scripted: Scripted) -> ScriptedServer:
    server = scripted(
        [{"tool_calls": [{"name": "bash", "arguments": {"command": WAIT, "description": "Wait"}}]}, {"text": "Over."}]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    return server


def release(project: Path) -> None:
    (project / "go").touch()


def test_strata_run_shows_a_running_tool_with_its_seconds_ticking(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    waiting_tool(cli, scripted)
    term = terminal("run", "--auto", "wait for it")
    term.expect(f"$ {WAIT} · 0s")  # before the command has ended: it waits for the file
    term.expect(f"$ {WAIT} · 1s")  # the count ticks on its own
    release(cli.project)
    term.expect("released")
    term.expect("Over.")


def test_the_interactive_mode_shows_a_running_tool_with_its_seconds_ticking(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    waiting_tool(cli, scripted)
    term = terminal()
    term.expect("build >")
    term.send("wait for it\r")
    term.expect(f"$ {WAIT} · 1s")
    release(cli.project)
    term.expect("released")
    term.expect("Over.")


def test_piped_and_json_runs_get_no_progress_lines(cli: Cli, scripted: Scripted) -> None:
    release(cli.project)  # the command ends at once
    waiting_tool(cli, scripted)
    piped = cli("run", "--auto", "wait for it")
    assert piped.returncode == 0, piped.stderr
    assert " · 0s" not in piped.stderr and "thinking" not in piped.stderr
    assert f"$ {WAIT}" in piped.stderr.splitlines()
    waiting_tool(cli, scripted)
    as_json = cli("run", "--auto", "--format", "json", "again")
    events = [json.loads(line) for line in as_json.stdout.splitlines()]  # every line is an event, nothing else
    assert "tool_use" in {event["type"] for event in events}
    assert " · 0s" not in as_json.stderr and "thinking" not in as_json.stderr
