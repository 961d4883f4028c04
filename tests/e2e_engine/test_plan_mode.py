"""Experimental plan mode over real HTTP: stored reminders, the plan file, and plan_exit answered yes or no."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from engine_harness import Mode, ask, engine, questions, scripted, stored, texts, tool_parts, tool_results, user_texts

from strata_core.bus import PermissionAsked, PermissionRequest
from strata_core.context.plan_file import plan_file as plan_file_at
from strata_core.message import MessageWithParts, TextPart, ToolStateCompleted, ToolStateError, UserMessage
from strata_core.prompt.reminders import build_switch_reminder, plan_reminder
from strata_core.runtime import Runtime
from strata_core.tool.builtin.plan_exit import APPROVED_OUTPUT, DISMISSED, approval_text
from strata_providers.testing.script import parse_script
from strata_providers.testing.scripted_server import ScriptedServer

FLAG = {"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}
NO_PLAN_YET = "No plan file exists yet. You should create your plan at {plan} using the write tool."
PLAN_EXISTS = "\n\nA plan file exists at {plan}. You should execute on the plan defined within it"
PLAN_TEXT = "# Plan\n\n1. Print a greeting from src/app.py.\n"


def tool_names(body: Mapping[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body["tools"]]


def reminders(body: Mapping[str, Any]) -> list[str]:
    return [text for text in user_texts(body) if text.startswith("<system-reminder>")]


def synthetic(message: MessageWithParts) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart) and p.synthetic]


def write_plan(plan: Path) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"filePath": str(plan), "content": PLAN_TEXT}}]}


PLAN_EXIT: dict[str, Any] = {"tool_calls": [{"name": "plan_exit", "arguments": {}}]}


async def plan_file(runtime: Runtime, session_id: str) -> Path:
    session = await runtime.sessions.get(session_id)
    path: Path = plan_file_at(runtime.project, runtime.container.paths(), session)  # what plan mode would use
    return path


def script_after(server: ScriptedServer, turns: Sequence[Mapping[str, Any]]) -> None:
    """Give the server its script once the session (and so the plan file's name) exists."""
    server.script = parse_script([dict(turn) for turn in turns])


async def prompt_answering(
    runtime: Runtime, session_id: str, text: str, reply: str, feedback: str | None = None
) -> list[PermissionRequest]:
    """Prompt the plan agent while answering every question with `reply`, as a person at the terminal would."""
    asked: list[PermissionRequest] = []
    async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:

        async def answer() -> None:
            async for event in events:
                if isinstance(event, PermissionAsked):
                    asked.append(event.request)
                    questions(runtime).reply(event.request.id, reply, feedback)  # type: ignore[arg-type]

        group.start_soon(answer)
        await runtime.loop.prompt(ask(session_id, text, agent="plan"))
        group.cancel_scope.cancel()
    return asked


# --- flag off --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_without_the_flag_the_plan_agent_gets_the_in_memory_reminder_and_no_plan_exit(
    project: Path, env: dict[str, str]
) -> None:
    script = [{"text": "Plan: print a greeting."}]
    async with scripted(script) as server, engine(project, env, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        history = await stored(runtime, session.id)
        plan = await plan_file(runtime, session.id)
    (request,) = server.main_requests
    assert reminders(request.body) == [plan_reminder()]
    assert "plan_exit" not in tool_names(request.body)
    assert synthetic(history[0]) == []
    assert not plan.parent.exists()


# --- entering plan mode ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_entering_plan_mode_stores_the_reminder_once_and_creates_the_plan_directory(
    project: Path, env: dict[str, str]
) -> None:
    glob: dict[str, Any] = {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}}]}
    script = [glob, {"text": "Need a question."}]
    async with scripted(script) as server, engine(project, env | FLAG, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        history = await stored(runtime, session.id)
        plan = await plan_file(runtime, session.id)
    assert plan.parent == project / ".strata" / "plans" and plan.parent.is_dir() and not plan.exists()
    first, second = server.main_requests
    (reminder,) = reminders(first.body)
    assert NO_PLAN_YET.format(plan=plan) in reminder.splitlines()
    assert reminders(second.body) == [reminder]  # sent again from the store, not added again
    assert user_texts(first.body) == ["plan it", reminder]
    assert synthetic(history[0]) == [reminder]
    assert "plan_exit" in tool_names(first.body)


@pytest.mark.anyio
async def test_a_second_plan_prompt_adds_no_new_reminder(project: Path, env: dict[str, str]) -> None:
    script = [{"text": "Which file?"}, {"text": "Noted."}]
    async with scripted(script) as server, engine(project, env | FLAG, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        await runtime.loop.prompt(ask(session.id, "src/app.py", agent="plan"))
        history = await stored(runtime, session.id)
    assert len(reminders(server.main_requests[1].body)) == 1
    assert [len(synthetic(m)) for m in history if isinstance(m.info, UserMessage)] == [1, 0]


@pytest.mark.anyio
async def test_outside_a_repository_the_plan_goes_to_the_data_dir(tmp_path: Path, env: dict[str, str]) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    async with scripted([{"text": "Ok."}]) as server, engine(loose, env | FLAG, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        plan = await plan_file(runtime, session.id)
    assert plan.parent == Path(env["HOME"]) / ".local" / "share" / "strata" / "plans"
    assert plan.parent.is_dir()
    (reminder,) = reminders(server.main_requests[0].body)
    assert NO_PLAN_YET.format(plan=plan) in reminder


# --- leaving plan mode -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_switching_to_build_stores_the_build_switch_with_where_the_plan_is(
    project: Path, env: dict[str, str]
) -> None:
    async with scripted([]) as server, engine(project, env | FLAG, server) as runtime:
        session = await runtime.sessions.create()
        plan = await plan_file(runtime, session.id)
        glob = {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.py"}}]}
        script_after(server, [write_plan(plan), {"text": "Plan written."}, glob, {"text": "Built."}])
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        await runtime.loop.prompt(ask(session.id, "go ahead", agent="build"))
        history = await stored(runtime, session.id)
    assert plan.read_text() == PLAN_TEXT
    build_first, build_second = server.main_requests[2:]
    switch = build_switch_reminder() + PLAN_EXISTS.format(plan=plan)
    assert user_texts(build_first.body)[-2:] == ["go ahead", switch]
    assert reminders(build_second.body) == reminders(build_first.body)  # once, not on every build step
    assert synthetic(history[-3]) == [switch]
    assert "plan_exit" not in tool_names(build_first.body)


@pytest.mark.anyio
async def test_switching_to_build_before_a_plan_exists_only_says_the_mode_changed(
    project: Path, env: dict[str, str]
) -> None:
    script = [{"text": "Thinking."}, {"text": "Building."}]
    async with scripted(script) as server, engine(project, env | FLAG, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
        await runtime.loop.prompt(ask(session.id, "just do it", agent="build"))
    assert reminders(server.main_requests[1].body)[-1] == build_switch_reminder()


# --- plan_exit -------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_plan_exit_yes_hands_the_plan_to_the_build_agent(project: Path, env: dict[str, str]) -> None:
    async with scripted([]) as server, engine(project, env | FLAG, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        plan = await plan_file(runtime, session.id)
        script_after(server, [write_plan(plan), PLAN_EXIT, {"text": "Implementing."}])
        asked = await prompt_answering(runtime, session.id, "plan it", "once")
        history = await stored(runtime, session.id)
    relative = ".strata/plans/" + plan.name
    (question,) = asked
    assert (question.permission, question.patterns, question.always) == ("plan_exit", (relative,), ())
    assert question.metadata["header"] == "Build Agent"
    assert [o["label"] for o in question.metadata["options"]] == ["Yes", "No"]
    _, exit_call, build_step = server.main_requests
    assert "plan_exit" in tool_names(exit_call.body) and "plan_exit" not in tool_names(build_step.body)
    assert tool_results(build_step.body)[-1] == APPROVED_OUTPUT
    switch = build_switch_reminder() + PLAN_EXISTS.format(plan=plan)
    assert build_step.body["messages"][-1]["content"] == [
        {"type": "text", "text": approval_text(relative)},
        {"type": "text", "text": switch},
    ]
    handover = history[-2]
    assert isinstance(handover.info, UserMessage) and handover.info.agent == "build"
    assert synthetic(handover) == [approval_text(relative), switch]
    assert history[-1].info.agent == "build" and texts(history[-1]) == ["Implementing."]
    part = tool_parts(history)[-1]
    assert isinstance(part.state, ToolStateCompleted) and part.state.title == "Switching to build agent"


@pytest.mark.anyio
async def test_plan_exit_no_fails_the_call_and_stops_the_turn(project: Path, env: dict[str, str]) -> None:
    async with scripted([PLAN_EXIT]) as server, engine(project, env | FLAG, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        asked = await prompt_answering(runtime, session.id, "plan it", "reject")
        history = await stored(runtime, session.id)
    assert len(asked) == 1 and len(server.main_requests) == 1
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError) and part.state.error == DISMISSED
    assert [m.info.agent for m in history] == ["plan", "plan"]


@pytest.mark.anyio
async def test_plan_exit_rejected_with_feedback_keeps_planning(project: Path, env: dict[str, str]) -> None:
    script = [PLAN_EXIT, {"text": "I will add tests to the plan."}]
    async with scripted(script) as server, engine(project, env | FLAG, server, mode="interactive") as runtime:
        session = await runtime.sessions.create()
        await prompt_answering(runtime, session.id, "plan it", "reject", "add tests first")
        history = await stored(runtime, session.id)
    _, after = server.main_requests
    assert "add tests first" in tool_results(after.body)[-1]
    assert "plan_exit" in tool_names(after.body)
    assert [m.info.agent for m in history] == ["plan", "plan", "plan"]


@pytest.mark.anyio
@pytest.mark.parametrize(("mode", "extra"), [("non_interactive", {}), ("interactive", {"STRATA_CLIENT": "app"})])
async def test_plan_exit_is_offered_only_to_an_interactive_cli_client(
    project: Path, env: dict[str, str], mode: Mode, extra: dict[str, str]
) -> None:
    async with (
        scripted([{"text": "Ok."}]) as server,
        engine(project, env | FLAG | extra, server, mode=mode) as runtime,
    ):
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan it", agent="plan"))
    (request,) = server.main_requests
    assert "plan_exit" not in tool_names(request.body)
    assert len(reminders(request.body)) == 1
