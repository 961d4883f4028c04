"""Permission asks answered once, always, or no; and asks nobody can answer."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from engine_harness import Script, ask, engine, questions, scripted, stored, texts, tool_parts, tool_results

from strata_core.bus import PermissionAsked, PermissionReply, PermissionRequest
from strata_core.message import AssistantMessage, MessageWithParts, ToolStateCompleted, ToolStateError
from strata_core.permission.rules import no_approver_reason
from strata_core.runtime import Runtime

ASK_BASH = {"permission": {"bash": "ask"}}


def _bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command, "description": command}}


async def _prompt_answering(
    runtime: Runtime, session_id: str, text: str, reply: PermissionReply
) -> tuple[MessageWithParts, list[PermissionRequest]]:
    """Run a prompt while answering every permission question with `reply`, as a person at the terminal
    would; the answer and the questions asked."""
    asked: list[PermissionRequest] = []
    async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:

        async def answer() -> None:
            async for event in events:
                if isinstance(event, PermissionAsked):
                    asked.append(event.request)
                    questions(runtime).reply(event.request.id, reply)

        group.start_soon(answer)
        result = await runtime.loop.prompt(ask(session_id, text))
        group.cancel_scope.cancel()
    return result, asked


@pytest.mark.anyio
async def test_once_runs_the_command_and_asks_again_next_time(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [_bash("echo one")]}, {"tool_calls": [_bash("echo two")]}, {"text": "Ran both."}]
    async with (
        scripted(script) as server,
        engine(project, env, server, mode="interactive", extra_config=ASK_BASH) as runtime,
    ):
        session = await runtime.sessions.create()
        answer, asked = await _prompt_answering(runtime, session.id, "run them", "once")
        history = await stored(runtime, session.id)
    assert [r.patterns for r in asked] == [("echo one",), ("echo two",)]
    assert asked[0].permission == "bash" and asked[0].call_id is not None
    assert all(isinstance(p.state, ToolStateCompleted) for p in tool_parts(history))
    assert "one" in tool_results(server.main_requests[1].body)[0]
    assert texts(answer) == ["Ran both."]


@pytest.mark.anyio
async def test_always_is_remembered_for_the_rest_of_the_session(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [_bash("echo one")]}, {"tool_calls": [_bash("echo two")]}, {"text": "Ran both."}]
    async with (
        scripted(script) as server,
        engine(project, env, server, mode="interactive", extra_config=ASK_BASH) as runtime,
    ):
        session = await runtime.sessions.create()
        _, asked = await _prompt_answering(runtime, session.id, "run them", "always")
        history = await stored(runtime, session.id)
    # `echo *` was approved by the first answer, so the second command ran without a question.
    assert [(r.patterns, r.always) for r in asked] == [(("echo one",), ("echo *",))]
    assert len(server.main_requests) == 3
    assert all(isinstance(p.state, ToolStateCompleted) for p in tool_parts(history))


@pytest.mark.anyio
async def test_reject_stops_the_turn_with_the_refusal_as_the_result(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [_bash("rm -rf build")]}, {"text": "After the refusal."}]
    async with (
        scripted(script) as server,
        engine(project, env, server, mode="interactive", extra_config=ASK_BASH) as runtime,
    ):
        session = await runtime.sessions.create()
        answer, asked = await _prompt_answering(runtime, session.id, "clean up", "reject")
        history = await stored(runtime, session.id)
        # The next prompt continues from a valid history: the refused call has its result.
        _, asked_again = await _prompt_answering(runtime, session.id, "ok, do not", "reject")
    assert len(asked) == 1 and asked_again == []
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert part.state.error == "The user rejected permission to use this specific tool call."
    assert isinstance(answer.info, AssistantMessage) and answer.info.finish == "tool-calls"
    assert tool_results(server.main_requests[1].body) == [part.state.error]


@pytest.mark.anyio
async def test_a_non_interactive_ask_fails_fast_and_stops(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [_bash("make deploy")]}, {"text": "unused"}]
    async with (
        scripted(script) as server,
        engine(project, env, server, mode="non_interactive", extra_config=ASK_BASH) as runtime,
    ):
        session = await runtime.sessions.create()
        with anyio.fail_after(10):
            await runtime.loop.prompt(ask(session.id, "deploy"))
        history = await stored(runtime, session.id)
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert f"needs approval, but {no_approver_reason()}" in part.state.error
    assert len(server.main_requests) == 1
