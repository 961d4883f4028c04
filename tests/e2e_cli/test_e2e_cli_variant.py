"""`strata run --variant`: a model's variant (reasoning effort, thinking budget) on the wire, as OpenCode sends it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config

from strata_providers.testing import ScriptedServer

Start = Callable[[list[dict[str, Any]]], ScriptedServer]


def reasoning_config(server: ScriptedServer, **model: Any) -> dict[str, Any]:
    config = mock_provider_config(f"http://127.0.0.1:{server.port}/v1")
    config["provider"]["mock"]["models"]["gpt-4o-mock"].update({"reasoning": True, **model})
    return config


def test_a_variant_sets_the_reasoning_effort_of_the_turn_but_not_of_the_title(cli: Cli, scripted: Start) -> None:
    server = scripted([{"text": "Done thinking."}])
    (cli.project / "opencode.json").write_text(json.dumps(reasoning_config(server)))
    done = cli("run", "--variant", "high", "think hard")
    assert done.returncode == 0, done.stderr
    assert server.main_requests[0].body["reasoning_effort"] == "high"
    assert server.title_requests[0].body["reasoning_effort"] == "low"  # titles run on the first variant


def test_config_variants_merge_over_the_derived_ones_and_can_be_disabled(cli: Cli, scripted: Start) -> None:
    server = scripted([{"text": "Done."}, {"text": "Done."}])
    variants = {"high": {"disabled": True}, "deep": {"reasoningEffort": "high", "maxCompletionTokens": 9000}}
    (cli.project / "opencode.json").write_text(json.dumps(reasoning_config(server, variants=variants)))
    done = cli("run", "--variant", "deep", "think")
    assert done.returncode == 0, done.stderr
    body = server.main_requests[0].body
    assert (body["reasoning_effort"], body["max_completion_tokens"]) == ("high", 9000)
    refused = cli("run", "--variant", "high", "think")
    assert refused.returncode == 1
    assert 'Model mock/gpt-4o-mock has no variant "high". Its variants: low, medium, deep.' in refused.stderr
    assert len(server.main_requests) == 1  # refused before anything was sent
