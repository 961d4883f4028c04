"""`strata debug prompt` and `strata models`: offline, no key, no connection."""

from __future__ import annotations

import json
from pathlib import Path

from cli_harness import Cli

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


def test_models_lists_configured_and_builtin_models(cli: Cli) -> None:
    _configured(cli.project)
    done = cli("models")
    assert done.returncode == 0, done.stderr
    refs = done.stdout.split()
    assert "mock/gpt-4o-mock" in refs and "openai/gpt-4o" in refs
    done = cli("models", "openai", "--json", extra_env={"OPENAI_API_KEY": "sk-test"})
    rows = json.loads(done.stdout)
    assert {row["provider"] for row in rows} == {"openai"}
    assert all(row["key"] == "set" for row in rows)
    done = cli("models", "nope")
    assert done.returncode == 1 and done.stderr.startswith('Error: Unknown provider "nope". Known providers:')
