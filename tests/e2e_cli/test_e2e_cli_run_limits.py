"""A model that never stops (broken tool calls, unknown tools, endless output, endless calls) ends the turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from cli_harness import Cli, mock_provider_config, write_config
from hostile_server import HostileServer, endless_text

from strata_providers.testing import ScriptedServer

NPMS = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}
Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def configure(cli: Cli, base_url: str, npm: str, **limits: int) -> None:
    config = mock_provider_config(base_url, npm=npm)
    if limits:
        config["limits"] = limits
    write_config(cli.project, config)


def bad_call(n: int) -> dict[str, Any]:
    return {"tool_calls": [{"name": "read", "arguments": "{" + " " * n}]}


def model_requests(server: ScriptedServer) -> int:
    return len([r for r in server.main_requests if r.body is not None])


@pytest.mark.parametrize("wire", sorted(NPMS))
@pytest.mark.parametrize(
    "call",
    [
        lambda n: {"name": "read", "arguments": '{"filePath": "a.txt"' + " " * n},
        lambda n: {"name": f"no_such_tool_{n}", "arguments": {}},
        lambda n: {"name": "read", "arguments": {"filePath": n}},  # each different: not the doom-loop check
    ],
    ids=["unparsable", "unknown-tool", "invalid"],
)
def test_failed_tool_calls_in_a_row_end_the_turn_with_a_reason(
    cli: Cli, scripted: Scripted, wire: str, call: Callable[[int], dict[str, Any]]
) -> None:
    server = scripted([{"tool_calls": [call(n)]} for n in range(5)])
    configure(cli, server.base_url, NPMS[wire])
    done = cli("run", "read a.txt")
    assert done.returncode != 0
    assert "the model made 5 failed tool calls in a row" in done.stderr
    assert "limits.tool_errors" in done.stderr
    assert model_requests(server) == 5  # and not a sixth: the script would run out


def test_the_budget_is_configurable_and_a_good_call_resets_it(cli: Cli, scripted: Scripted) -> None:
    (cli.project / "a.txt").write_text("hello")
    good = {"tool_calls": [{"name": "read", "arguments": {"filePath": str(cli.project / "a.txt")}}]}
    server = scripted([bad_call(1), good, bad_call(2), bad_call(3)])
    configure(cli, server.base_url, NPMS["chat"], tool_errors=2)
    done = cli("run", "read a.txt")
    assert done.returncode != 0
    assert "the model made 2 failed tool calls in a row" in done.stderr


def test_a_turn_stops_at_its_step_limit(cli: Cli, scripted: Scripted) -> None:
    for n in range(3):
        (cli.project / f"{n}.txt").write_text("hello")
    server = scripted([{"tool_calls": [{"name": "read", "arguments": {"filePath": f"{n}.txt"}}]} for n in range(3)])
    configure(cli, server.base_url, NPMS["chat"], turn_steps=3)
    done = cli("run", "read a.txt forever")
    assert done.returncode != 0
    assert "the turn reached its limit of 3 steps" in done.stderr


@pytest.mark.parametrize("wire", sorted(NPMS))
def test_endless_output_ends_the_step_at_its_output_limit(cli: Cli, wire: str) -> None:
    with HostileServer(endless_text) as server:
        configure(cli, server.base_url, NPMS[wire], step_output_bytes=20_000)
        done = cli("run", "say hello", "--format", "json")
    assert done.returncode != 0
    assert "the model streamed more than 20,000 bytes in one step" in done.stdout + done.stderr
    assert server.model_requests == 1
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    texts = [e["part"]["text"] for e in events if e.get("type") == "text"]
    assert texts and 19_000 < len(texts[-1].encode()) <= 20_000  # what came within the limit is kept
