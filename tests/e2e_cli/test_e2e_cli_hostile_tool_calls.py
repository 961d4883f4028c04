"""Tool calls a model gets wrong: duplicate ids in one step, arguments nested 100,000 deep."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

NPMS = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}
Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def tool_results(body: dict[str, Any], wire: str) -> dict[str, str]:
    """call id -> result text, from the request that follows a step's tool calls."""
    if wire == "chat":
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return {
        b["tool_use_id"]: b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
        for b in blocks
        if b.get("type") == "tool_result"
    }


def tool_call_ids(body: dict[str, Any], wire: str) -> list[str]:
    if wire == "chat":
        return [c["id"] for m in body["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    return [b["id"] for b in blocks if b.get("type") == "tool_use"]


@pytest.mark.parametrize("wire", sorted(NPMS))
def test_two_calls_with_one_id_both_run_and_both_stay_in_the_history(cli: Cli, scripted: Scripted, wire: str) -> None:
    (cli.project / "a.txt").write_text("alpha")
    (cli.project / "b.txt").write_text("bravo")
    calls = [
        {"name": "read", "arguments": {"filePath": "a.txt"}, "id": "dup"},
        {"name": "read", "arguments": {"filePath": "b.txt"}, "id": "dup"},
    ]
    server = scripted([{"tool_calls": calls}, {"text": "Both read."}])
    write_config(cli.project, mock_provider_config(server.base_url, npm=NPMS[wire]))
    done = cli("run", "read both")
    assert done.returncode == 0, done.stderr
    assert "Both read." in done.stdout
    follow_up = server.main_requests[1].body
    ids = tool_call_ids(follow_up, wire)
    assert len(ids) == 2 and len(set(ids)) == 2 and ids[0] == "dup"
    results = tool_results(follow_up, wire)
    assert set(results) == set(ids)
    assert "alpha" in results[ids[0]] and "bravo" in results[ids[1]]


@pytest.mark.parametrize("wire", sorted(NPMS))
def test_arguments_nested_100000_deep_fail_only_their_own_call(cli: Cli, scripted: Scripted, wire: str) -> None:
    (cli.project / "a.txt").write_text("alpha")
    calls = [
        {"name": "read", "arguments": '{"filePath":' + "[" * 100_000, "id": "deep"},
        {"name": "read", "arguments": {"filePath": "a.txt"}, "id": "fine"},
    ]
    server = scripted([{"tool_calls": calls}, {"text": "One failed."}])
    write_config(cli.project, mock_provider_config(server.base_url, npm=NPMS[wire]))
    done = cli("run", "read it")
    assert done.returncode == 0, done.stderr
    assert "One failed." in done.stdout
    results = tool_results(server.main_requests[1].body, wire)
    assert "nested too deeply" in results["deep"]
    assert "alpha" in results["fine"]
