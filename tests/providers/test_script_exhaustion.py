"""A script that runs out in the middle of a real turn fails the test, loudly and at once.

In process, `ScriptExhaustedError` raises out of `loop.prompt` (the engine stores a provider's failure on the
message, but lets a test double's failure through). Over HTTP the client gets a non-retryable failure, which
the engine stores like any provider error; the server then raises when the test leaves it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
import structlog.testing

from strata_core.config.service import ConfigInfo
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import AssistantMessage, RetryPart, ToolPart, ToolStateCompleted
from strata_core.runtime import Runtime, open_runtime
from strata_providers.catalog import ProviderCatalog
from strata_providers.testing import ScriptedModel, ScriptedResolver, ScriptedServer, ScriptExhaustedError

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "notes.txt").write_text("alpha\n")
    return directory


def read_then_nothing(project: Path) -> list[dict[str, Any]]:
    """One tool step; the answer after the tool result is not scripted."""
    return [{"tool_calls": [{"name": "read", "arguments": {"filePath": str(project / "notes.txt")}}]}]


def in_process(project: Path, model: ScriptedModel) -> AbstractAsyncContextManager[Runtime]:
    env = {"HOME": str(project.parent / "home")}
    return open_runtime(project, env, models=ScriptedResolver(model), store="memory")


async def test_a_script_that_runs_out_mid_turn_raises_out_of_the_prompt(
    project: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    model = ScriptedModel(read_then_nothing(project))
    async with in_process(project, model) as runtime:
        session = await runtime.sessions.create()
        with structlog.testing.capture_logs() as logged, pytest.raises(ScriptExhaustedError) as caught:
            await runtime.loop.prompt(PromptRequest(session.id, [TextInput("read the notes")]))
        messages = await runtime.sessions.messages(session.id)
    error = caught.value
    assert (error.turn, error.script_length) == (2, 1)
    assert str(error).startswith("ScriptedModel: the script ran out: turn #2 was asked for")
    # No retry: the failed call was the second and last; nothing was logged or printed about it.
    assert model.turns_used == 2 and len(model.main_requests) == 2
    assert not [p for m in messages for p in m.parts if isinstance(p, RetryPart)]
    assert [entry for entry in logged if entry["log_level"] in ("error", "critical", "warning")] == []
    assert capfd.readouterr().out == ""
    # The session still says how the step ended, so the next prompt can carry on.
    first, failed = (m.info for m in messages if isinstance(m.info, AssistantMessage))
    assert first.finish == "tool-calls" and failed.error is not None and failed.error.name == "UnknownError"
    (tool,) = [p for m in messages for p in m.parts if isinstance(p, ToolPart)]
    assert isinstance(tool.state, ToolStateCompleted)


async def test_a_providers_failure_is_still_stored_on_the_message_not_raised(project: Path) -> None:
    model = ScriptedModel([{"status": 401, "message": "invalid x-api-key"}])
    async with in_process(project, model) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    assert answer.info.error.name == "ProviderAuthError" and "invalid x-api-key" in answer.info.error.message


def provider_config(server: ScriptedServer) -> Mapping[str, Any]:
    models = {"mock-model": {"tool_call": True, "limit": {"context": 100_000, "output": 4_000}}}
    options = {"baseURL": server.base_url, "apiKey": "test-key"}
    return {"provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "options": options, "models": models}},
            "model": "mock/mock-model"}  # fmt: skip


def over_http(project: Path, server: ScriptedServer) -> AbstractAsyncContextManager[Runtime]:
    (project / "strata.json").write_text(json.dumps(provider_config(server)))

    def catalog(config: ConfigInfo, env: Mapping[str, str], client: Any) -> ProviderCatalog:
        return ProviderCatalog(config.blocks, env, client)  # the default retry policy: 2 s, 4 s, 8 s

    env = {"HOME": str(project.parent / "home")}
    return open_runtime(project, env, models=catalog, store="memory")


async def test_a_server_script_that_runs_out_mid_turn_fails_the_test_when_the_server_stops(project: Path) -> None:
    with pytest.raises(ScriptExhaustedError) as caught:
        async with ScriptedServer(read_then_nothing(project)) as server, over_http(project, server) as runtime:
            session = await runtime.sessions.create()
            answer = await runtime.loop.prompt(PromptRequest(session.id, [TextInput("read the notes")]))
            # The wire saw a 400 it does not retry: the turn ended with the failure stored, at once.
            assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
            assert answer.info.error.name == "APIError" and answer.info.error.data["isRetryable"] is False
            assert "the script ran out: turn #2 was asked for" in answer.info.error.message
            assert not [p for p in answer.parts if isinstance(p, RetryPart)]
            assert len(server.main_requests) == 2
    assert (caught.value.source, caught.value.turn, caught.value.script_length) == ("ScriptedServer", 2, 1)
