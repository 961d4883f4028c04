"""What a run used and cost, shown where OpenCode shows it; and a first run with nothing configured finding a
local model server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli, mock_provider_config

from strata_providers.testing import ScriptedServer

Start = Callable[[list[dict[str, Any]]], ScriptedServer]
PRICED = {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}


def priced_config(server: ScriptedServer) -> dict[str, Any]:
    config = mock_provider_config(f"http://127.0.0.1:{server.port}/v1")
    config["provider"]["mock"]["models"]["gpt-4o-mock"]["cost"] = PRICED
    return config


def test_each_step_costs_what_its_tokens_cost_at_the_models_prices(cli: Cli, scripted: Start) -> None:
    server = scripted([{"text": "Hello.", "usage": {"input": 1_000_000, "output": 1_000_000}}])
    (cli.project / "opencode.json").write_text(json.dumps(priced_config(server)))
    done = cli("run", "--format", "json", "say hello")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    step = next(e for e in events if e["type"] == "step_finish")
    assert step["part"]["cost"] == 18.0  # the two million tokens at {input: 3, output: 15}
    session = next(e["sessionID"] for e in events if "sessionID" in e)
    shown = cli("session", "show", session)
    assert "tokens 1,000,000 in · 1,000,000 out · 0 cache read · 0 cache write · $18.00" in shown.stdout


def test_the_end_of_a_run_says_what_it_used_on_stderr(cli: Cli, scripted: Start) -> None:
    usage = {"input": 2_000, "output": 500, "cache_read": 10_000}
    server = scripted([{"text": "Hello.", "usage": usage}])
    (cli.project / "opencode.json").write_text(json.dumps(priced_config(server)))
    done = cli("run", "say hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello."
    cost = (2_000 * 3 + 500 * 15 + 10_000 * 0.3) / 1_000_000
    assert f"tokens 2,000 in · 500 out · 10,000 cache read · 0 cache write · ${cost:.4f}" in done.stderr


def test_a_cost_the_provider_reports_is_believed(cli: Cli, scripted: Start) -> None:
    usage = {"input": 1_000_000, "output": 10, "cost": 0.0123}
    server = scripted([{"text": "Hello.", "usage": usage}])
    (cli.project / "opencode.json").write_text(json.dumps(priced_config(server)))
    done = cli("run", "--format", "json", "say hello")
    step = next(e for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "step_finish")
    assert step["part"]["cost"] == 0.0123


def test_with_nothing_configured_a_local_server_that_answers_supplies_the_model(cli: Cli, scripted: Start) -> None:
    server = scripted([{"text": "Hello from the local model."}])
    nobody = scripted([])  # a second server, listed first, that is stopped: the probe passes over it
    address = f"127.0.0.1:{nobody.port}"
    nobody.__exit__(None, None, None)
    servers = f"vllm={address},ollama=127.0.0.1:{server.port}"
    done = cli("run", "say hello", extra_env={"STRATA_LOCAL_SERVERS": servers})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello from the local model."
    assert "using ollama/scripted from the Ollama server" in done.stderr
    assert 'set "model": "ollama/scripted" in strata.json' in done.stderr
    assert server.main_requests[0].body["model"] == "scripted"
    listed = cli("models", extra_env={"STRATA_LOCAL_SERVERS": servers})
    assert listed.stdout.split() == ["ollama/scripted"]


def test_with_nothing_configured_and_no_server_up_the_error_says_how_to_configure(cli: Cli) -> None:
    done = cli("run", "say hello")
    assert done.returncode == 1
    assert "No model is configured" in done.stderr and "Ollama, LM Studio" in done.stderr


def test_stats_sums_a_database_of_many_sessions_and_narrows_to_this_project(cli: Cli, scripted: Start) -> None:
    import time

    import anyio
    from usage_records import priced_sessions

    from strata_core.session.sqlite_store import SqliteSessionStore

    server = scripted([{"text": "Hello.", "usage": {"input": 1_000, "output": 100}}])
    (cli.project / "opencode.json").write_text(json.dumps(priced_config(server)))
    assert cli("run", "say hello").returncode == 0  # one session of this project, $0.0045

    async def fill() -> None:
        async with SqliteSessionStore.open(Path(cli.env["XDG_DATA_HOME"]) / "strata" / "strata.db") as store:
            await priced_sessions(store, 200, now_ms=int(time.time() * 1000), project_id="elsewhere")

    anyio.run(fill)
    found = json.loads(cli("stats", "--json").stdout)
    assert found["totalSessions"] == 201 and found["totalCost"] == pytest.approx(200 * 0.02 + 0.0045)
    assert {"a/one", "b/two", "mock/gpt-4o-mock"} <= set(found["modelUsage"])
    assert found["modelUsage"]["a/one"]["sessions"] == 200
    recent = json.loads(cli("stats", "--days", "3", "--json").stdout)
    assert recent["totalSessions"] == 1 + 3 and recent["days"] == 3  # updated less than 3 days ago
    mine = json.loads(cli("stats", "--project", "--json").stdout)
    assert mine["totalSessions"] == 1 and set(mine["modelUsage"]) == {"mock/gpt-4o-mock"}
    table = cli("stats").stdout
    assert "Sessions" in table and "201" in table and "a/one" in table and "$4.00" in table


def test_the_usage_line_counts_the_subagents_model_calls_too(cli: Cli, scripted: Start) -> None:
    server = scripted(
        [
            {"text": "Found greet.", "usage": {"input": 1_000, "output": 100}},  # the explore subagent
            {"text": "Done looking.", "usage": {"input": 2_000, "output": 200}},  # the parent, after it
        ]
    )
    (cli.project / "opencode.json").write_text(json.dumps(priced_config(server)))
    done = cli("run", "@explore find the greet function")
    assert done.returncode == 0, done.stderr
    assert len(server.main_requests) == 2
    cost = (3_000 * 3 + 300 * 15) / 1_000_000
    assert f"tokens 3,000 in · 300 out · 0 cache read · 0 cache write · ${cost:.4f}" in done.stderr
