"""MCP servers that break the protocol, through the `strata` command: what went wrong is said in one line that
names the server, never as an internal error, a hang or a bare "Connection closed"."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from mcp_servers import misbehaving_server

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_a_prompt_command_the_server_answers_with_an_error_fails_as_an_ordinary_error(
    cli: Cli, scripted: Scripted
) -> None:
    server = scripted([])
    write_config(
        cli.project, {**mock_provider_config(server.base_url), "mcp": {"bad": misbehaving_server("prompt-error")}}
    )
    done = cli("run", "--command", "bad:p1", "hi")
    assert done.returncode == 1, done.stderr
    reason = 'MCP server "bad" answered prompts/get "p1" with an error: Missing required argument: topic'
    assert f"Error: {reason}" in done.stderr
    assert "internal error" not in done.stderr and server.main_requests == []


def test_a_server_that_says_on_stderr_why_it_exits_is_shown_failed_with_what_it_said(
    cli: Cli, scripted: Scripted
) -> None:
    server = scripted([{"text": "Hello."}])
    write_config(
        cli.project, {**mock_provider_config(server.base_url), "mcp": {"bad": misbehaving_server("explain-and-exit")}}
    )
    listed = cli("mcp", "list", "--json")
    done = cli("run", "say hello")
    reason = (
        "Connection closed; its stderr ended with: starting the server | reading settings from /etc/nothing.toml"
        " | fatal: the API token is missing"
    )
    assert [(view["name"], view["status"], view["error"]) for view in json.loads(listed.stdout)] == [
        ("bad", "failed", reason)
    ]
    assert done.returncode == 0, done.stderr
    assert f'MCP server "bad" failed: {reason} (its tools are not offered)' in done.stderr
