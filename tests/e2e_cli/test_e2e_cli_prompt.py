"""`strata debug prompt` and `strata models`: offline, no key, no connection."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from loopback_text_server import LoopbackTextServer

from strata_providers.testing import ScriptedServer

MOCK_CONFIG = {
    "provider": {
        "mock": {
            "npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": "http://127.0.0.1:9/v1"},  # nothing listens: a connection would fail
            "models": {"gpt-4o-mock": {"name": "gpt-4o-mock", "tool_call": True}},
        }
    },
    "model": "mock/gpt-4o-mock",
}


def _configured(project: Path) -> None:
    (project / "opencode.json").write_text(json.dumps(MOCK_CONFIG))
    (project / "AGENTS.md").write_text("Answer briefly.\n")


def test_debug_prompt_json_gives_the_exact_system_string_and_its_layers(cli: Cli) -> None:
    _configured(cli.project)
    done = cli("debug", "prompt", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["agent"] == "build" and found["model"] == "mock/gpt-4o-mock"
    kinds = [layer["kind"] for layer in found["layers"]]
    assert kinds == ["provider", "environment", "instructions", "skills"]
    assert found["layers"][2]["source"] == str(cli.project / "AGENTS.md")
    assert f"Instructions from: {cli.project / 'AGENTS.md'}\nAnswer briefly." in found["system"]
    assert "You are powered by the model named gpt-4o-mock" in found["system"]
    assert sum(layer["chars"] for layer in found["layers"]) + len(kinds) - 1 == len(found["system"])


def test_debug_prompt_shows_what_a_turn_sends_and_the_instructions_that_failed(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    rules = LoopbackTextServer(lambda path: (200, "Team rule.") if path == "/team.md" else (500, "down"))
    try:
        team, broken = rules.url("/team.md"), rules.url("/broken.md")
        server = scripted([{"text": "Hi."}])
        write_config(cli.project, {**mock_provider_config(server.base_url), "instructions": [broken, team]})
        (cli.project / "AGENTS.md").write_text("Answer briefly.\n")
        ran = cli("run", "hi")
        shown = cli("debug", "prompt", "--json")
        text = cli("debug", "prompt")
    finally:
        rules.close()
    assert ran.returncode == 0 and shown.returncode == 0, ran.stderr + shown.stderr
    found = json.loads(shown.stdout)
    assert found["system"] == server.main_requests[0].body["messages"][0]["content"]
    assert f"Instructions from: {team}\nTeam rule." in found["system"] and broken not in found["system"]
    assert found["failures"] == [{"source": broken, "reason": "HTTP 500"}]
    assert f"# instruction skipped {broken}: HTTP 500" in text.stderr.splitlines()


def test_debug_prompt_text_prints_the_prompt_on_stdout_and_layers_on_stderr(cli: Cli) -> None:
    _configured(cli.project)
    done = cli("debug", "prompt", "--agent", "plan", "-m", "openai/gpt-4o")
    assert done.returncode == 0, done.stderr
    assert "<env>" in done.stdout
    assert "# agent plan · model openai/gpt-4o" in done.stderr  # no OPENAI_API_KEY needed to look


def test_debug_prompt_without_a_model_says_how_to_configure_one(cli: Cli) -> None:
    done = cli("debug", "prompt")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: No model is configured.")
    assert '"baseURL": "http://localhost:8080/v1"' in done.stderr  # the local server example
    assert "Traceback" not in done.stderr


def test_unknown_model_and_agent_are_clear_errors(cli: Cli) -> None:
    _configured(cli.project)
    done = cli("debug", "prompt", "-m", "mock/gpt-5-mock")
    assert done.returncode == 1
    assert done.stderr.startswith('Error: Unknown model "gpt-5-mock" for provider "mock". Did you mean: gpt-4o-mock?')
    done = cli("debug", "prompt", "--agent", "nope")
    assert done.returncode == 1 and 'Agent not found: "nope"' in done.stderr


def test_models_lists_only_usable_models_unless_all(cli: Cli) -> None:
    _configured(cli.project)
    done = cli("models")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mock/gpt-4o-mock"]  # no key is set: only the configured provider is usable
    everything = cli("models", "--all").stdout.split()
    assert "mock/gpt-4o-mock" in everything and "openai/gpt-4o" in everything and len(everything) > 4000
    done = cli("models", "openai", "--json", extra_env={"OPENAI_API_KEY": "sk-test"})
    rows = json.loads(done.stdout)
    assert {row["provider"] for row in rows} == {"openai"} and "openai/gpt-4o" in {row["ref"] for row in rows}
    assert all(row["key"] == "set" for row in rows)
    gpt4o = next(row for row in rows if row["ref"] == "openai/gpt-4o")
    assert gpt4o["cost"]["input"] > 0 and gpt4o["context"] > 0
    done = cli("models", "nope")
    assert done.returncode == 1 and done.stderr.startswith('Error: Unknown provider "nope"')


def test_models_with_nothing_usable_says_why_on_stderr(cli: Cli) -> None:
    done = cli("models")
    assert done.returncode == 0 and done.stdout == ""
    assert "No usable models" in done.stderr and "`strata models --all`" in done.stderr


def test_models_verbose_shows_limits_capabilities_and_prices(cli: Cli) -> None:
    done = cli("models", "anthropic", "--verbose", extra_env={"ANTHROPIC_API_KEY": "k"})
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("anthropic/claude-sonnet-4-5 "))
    assert "context 200000" in line and "output 64000" in line and "reasoning" in line
    assert "$3 in / $15 out / $0.3 cache read / $3.75 cache write per 1M tokens" in line
    assert "variants high,max" in line


def test_models_refresh_replaces_the_catalogue_with_a_models_dev_file(cli: Cli, tmp_path: Path) -> None:
    model = {"id": "a-1", "name": "A 1", "limit": {"context": 1000, "output": 100}}
    data = {"acme": {"id": "acme", "name": "Acme", "npm": "@ai-sdk/openai-compatible", "env": ["ACME_KEY"],
                     "api": "https://acme.example/v1", "models": {"a-1": model}}}  # fmt: skip
    source = tmp_path / "api.json"
    source.write_text(json.dumps(data))
    done = cli("models", "--refresh", str(source), "--all")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "acme/a-1" and len(done.stdout.splitlines()) == 1  # --all: "(no key: ...)"
    assert f"Model catalogue refreshed from {source}: 1 providers, 1 models" in done.stderr
    assert cli("models", "--all").stdout.split()[:1] == ["acme/a-1"]  # kept for later runs
    source.write_text("[]")
    done = cli("models", "--refresh", str(source))
    assert done.returncode == 1 and "expected models.dev's api.json" in done.stderr
    assert cli("models", "--all").stdout.splitlines()[0].startswith("acme/a-1")  # a bad file changes nothing
