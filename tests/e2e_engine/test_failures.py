"""Provider failures, cut streams and aborts: the turn ends cleanly and the next prompt carries on."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import define, field
from engine_harness import Script, ask, engine, scripted, stored, texts, tool_parts, tool_results

from strata_core.bus import PartUpdated, SessionRetry, SessionUpdated
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    MessageWithParts,
    RetryPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateRunning,
)
from strata_core.runtime import Runtime
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget


@pytest.mark.anyio
async def test_a_rate_limit_is_retried_then_succeeds(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"status": 429, "message": "Slow down"}, {"text": "Made it."}]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        async with runtime.bus.subscribe() as events:
            answer = await runtime.loop.prompt(ask(session.id, "hi"))
            retries = [e for e in _drain(events) if isinstance(e, SessionRetry)]
    assert len(server.main_requests) == 2
    assert server.main_requests[0].body == server.main_requests[1].body
    assert texts(answer) == ["Made it."]
    retry = next(p for p in answer.parts if isinstance(p, RetryPart))
    assert retry.attempt == 1 and retry.error.name == "APIError" and retry.error.data.get("statusCode") == 429
    assert [(e.session_id, e.attempt) for e in retries] == [(session.id, 1)]


@pytest.mark.anyio
async def test_a_stream_cut_mid_way_records_the_error_and_the_next_prompt_continues(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"text": "This answer will be cut short", "chunk_size": 4, "cut_after": 4},
        {"text": "Second try."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        cut = await runtime.loop.prompt(ask(session.id, "tell me"))
        again = await runtime.loop.prompt(ask(session.id, "again please"))
        history = await stored(runtime, session.id)
    assert isinstance(cut.info, AssistantMessage) and cut.info.error is not None
    assert cut.info.error.name == "APIError" and cut.info.finish is None
    assert texts(again) == ["Second try."]
    assert [m.info.role for m in history] == ["user", "assistant", "user", "assistant"]
    # The failed answer is not replayed; both user messages are.
    second = server.main_requests[1].body
    assert [m["role"] for m in second["messages"]] == ["system", "user", "user"]


@define
class SlowToStop:
    """A custom tool that runs until cancelled, then takes until `release` to end (as a command being killed)."""

    started: anyio.Event = field(factory=anyio.Event)
    release: anyio.Event = field(factory=anyio.Event)
    name: str = "wait"

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {}}

    async def description(self, target: ToolTarget) -> str:
        return "Waits."

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        return ToolPermission(self.name, ("*",))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.set()
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await self.release.wait()
        raise AssertionError("unreachable")


WAIT_THEN_ANSWER: Script = [{"tool_calls": [{"name": "wait", "arguments": {}}]}, {"text": "Here now."}]


async def prompt_while_an_aborted_run_ends(
    runtime: Runtime, session_id: str, tool: SlowToStop, abort_again: bool
) -> MessageWithParts:
    """Prompts, aborts once the tool runs, and prompts again while the aborted run is still ending (then aborts
    once more if `abort_again`) before the run may end: the second prompt's answer."""
    with anyio.fail_after(20):
        async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
            group.start_soon(runtime.loop.prompt, ask(session_id, "wait for it"))
            await tool.started.wait()
            await runtime.loop.cancel(session_id)
            second: list[MessageWithParts] = []

            async def prompt_again() -> None:
                second.append(await runtime.loop.prompt(ask(session_id, "are you there?")))

            group.start_soon(prompt_again)
            async for event in events:  # the second prompt's message is stored: it is about to run or join
                if isinstance(event, SessionUpdated) and len(await runtime.store.messages(session_id)) == 3:
                    break
            assert runtime.loop.is_running(session_id)  # the aborted run has not ended yet
            if abort_again:
                await runtime.loop.cancel(session_id)
            tool.release.set()
    return second[0]


@pytest.mark.anyio
async def test_a_prompt_sent_right_after_an_abort_gets_a_turn_of_its_own(project: Path, env: dict[str, str]) -> None:
    """A server tells its clients idle as soon as it is asked to abort; a prompt sent while the aborted run is
    still ending must not join it (an aborted run reads no new input) and go unanswered."""
    tool = SlowToStop()
    async with scripted(WAIT_THEN_ANSWER) as server, engine(project, env, server, mode="auto", tools=[tool]) as runtime:
        session = await runtime.sessions.create()
        second = await prompt_while_an_aborted_run_ends(runtime, session.id, tool, abort_again=False)
    assert texts(second) == ["Here now."]


@pytest.mark.anyio
async def test_a_second_abort_ends_a_prompt_waiting_for_the_aborted_run(project: Path, env: dict[str, str]) -> None:
    """Aborted again while a prompt waits for the aborted run's end, the session runs nothing more: the prompt
    ends with the run (its message stays stored for the next turn), as OpenCode's cancel ends its waiters."""
    tool = SlowToStop()
    async with scripted(WAIT_THEN_ANSWER) as server, engine(project, env, server, mode="auto", tools=[tool]) as runtime:
        session = await runtime.sessions.create()
        second = await prompt_while_an_aborted_run_ends(runtime, session.id, tool, abort_again=True)
        messages = await runtime.store.messages(session.id)
    answer = second.info
    assert isinstance(answer, AssistantMessage) and answer.error is not None and answer.error.name == ABORTED_ERROR
    assert len(server.main_requests) == 1  # no turn for the second prompt
    assert [m.info.role for m in messages] == ["user", "assistant", "user"]


@pytest.mark.anyio
async def test_an_abort_mid_tool_interrupts_it_and_leaves_a_resumable_session(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo started; sleep 30", "description": "Wait"}}]},
        {"text": "Stopped waiting."},
    ]
    async with scripted(script) as server, engine(project, env, server, mode="auto") as runtime:
        session = await runtime.sessions.create()
        with anyio.fail_after(20):
            async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
                group.start_soon(runtime.loop.prompt, ask(session.id, "wait for it"))
                async for event in events:  # until the command has printed, so there is output to keep
                    part = event.part if isinstance(event, PartUpdated) else None
                    state = part.state if isinstance(part, ToolPart) else None
                    if isinstance(state, ToolStateRunning) and "started" in str((state.metadata or {}).get("output")):
                        break
                await runtime.loop.cancel(session.id)
        aborted = await stored(runtime, session.id)
        answer = await runtime.loop.prompt(ask(session.id, "never mind"))
    info = aborted[-1].info
    assert isinstance(info, AssistantMessage) and info.error is not None and info.error.name == ABORTED_ERROR
    assert info.time.completed is not None
    (part,) = tool_parts(aborted)
    # The command answered the abort: completed with its output so far and OpenCode's note.
    assert isinstance(part.state, ToolStateCompleted)
    assert part.state.output.startswith("started\n")
    assert part.state.output.endswith("<shell_metadata>\nUser aborted the command\n</shell_metadata>")
    assert texts(answer) == ["Stopped waiting."]
    # The interrupted call is answered in the next request (with what it printed), so no call dangles.
    (result,) = tool_results(server.main_requests[1].body)
    assert result.startswith("started\n") and "User aborted the command" in result


def _drain(events: object) -> list[object]:
    out: list[object] = []
    while True:
        try:
            out.append(events.receive_nowait())  # type: ignore[attr-defined]
        except anyio.WouldBlock:
            return out
