"""Step limits, structured output, subagents, plan/build reminders, compaction and titles, over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted, stored, texts, tool_parts, tool_results, user_texts

from strata_core.message import AssistantMessage, OutputFormat, TextPart, ToolStateCompleted
from strata_core.texts import read_prompt


@pytest.mark.anyio
async def test_the_step_limit_prefills_the_wrap_up_and_keeps_the_tools(project: Path, env: dict[str, str]) -> None:
    glob = {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}}]}
    script: Script = [glob, glob, {"text": "Out of steps: found notes.txt."}]
    config = {"agent": {"build": {"steps": 2}}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "look around"))
    bodies = [r.body for r in server.main_requests]
    last_roles = [b["messages"][-1]["role"] for b in bodies]
    assert last_roles == ["user", "assistant", "assistant"]
    assert bodies[1]["messages"][-1]["content"] == read_prompt("reminders/max_steps.txt")
    assert all(b["tools"] for b in bodies)
    assert texts(answer) == ["Out of steps: found notes.txt."]


@pytest.mark.anyio
async def test_structured_output_is_required_and_stored(project: Path, env: dict[str, str]) -> None:
    schema = {"type": "object", "properties": {"files": {"type": "integer"}}, "required": ["files"]}
    script = [{"tool_calls": [{"name": "StructuredOutput", "arguments": {"files": 2}}]}]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        fmt = OutputFormat(type="json_schema", schema=schema)
        answer = await runtime.loop.prompt(ask(session.id, "count the files", format=fmt))
        history = await stored(runtime, session.id)
    (request,) = server.main_requests
    assert request.body["tool_choice"] == "required"
    tool = next(t for t in request.body["tools"] if t["function"]["name"] == "StructuredOutput")
    assert tool["function"]["parameters"] == schema
    assert isinstance(answer.info, AssistantMessage) and answer.info.structured == {"files": 2}
    stored_answer = history[-1].info
    assert isinstance(stored_answer, AssistantMessage) and stored_answer.structured == {"files": 2}


@pytest.mark.anyio
async def test_a_subtask_runs_a_child_session(project: Path, env: dict[str, str]) -> None:
    task = {"description": "Count notes", "prompt": "How many lines in notes.txt?", "subagent_type": "general"}
    script: Script = [
        {"tool_calls": [{"name": "task", "arguments": task}]},
        {"text": "notes.txt has two lines."},
        {"text": "The subagent says two lines."},
    ]
    async with scripted(script) as server, engine(project, env, server, mode="auto") as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "delegate the count"))
        (child,) = await runtime.sessions.children(session.id)
        child_history = await stored(runtime, child.id)
        history = await stored(runtime, session.id)
    assert child.title == "Count notes (@general subagent)"
    assert texts(child_history[-1]) == ["notes.txt has two lines."]
    _, child_call, parent_end = server.main_requests
    assert user_texts(child_call.body) == ["How many lines in notes.txt?"]
    assert child_call.headers["x-parent-session-id"] == session.id
    assert "task" not in [t["function"]["name"] for t in child_call.body["tools"]]
    (result,) = tool_results(parent_end.body)
    assert f'<task id="{child.id}" state="completed">' in result and "notes.txt has two lines." in result
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateCompleted) and part.state.metadata["sessionId"] == child.id
    assert texts(answer) == ["The subagent says two lines."]


@pytest.mark.anyio
async def test_plan_then_build_sends_the_reminders_without_storing_them(project: Path, env: dict[str, str]) -> None:
    script = [{"text": "Plan: edit app.py."}, {"text": "Done building."}]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "plan the change", agent="plan"))
        await runtime.loop.prompt(ask(session.id, "go ahead", agent="build"))
        history = await stored(runtime, session.id)
    plan, build = (r.body for r in server.main_requests)
    assert user_texts(plan) == ["plan the change", read_prompt("reminders/plan.txt")]
    assert user_texts(build)[-2:] == ["go ahead", read_prompt("reminders/build_switch.txt")]
    stored_texts = [p.text for m in history for p in m.parts if isinstance(p, TextPart)]
    assert not any("system-reminder" in text for text in stored_texts)


@pytest.mark.anyio
async def test_compaction_on_overflow_summarises_and_carries_on(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"text": "A very long answer.", "usage": {"input": 9_500, "output": 100}},
        {"text": "## Goal\n- answer the question"},
        {"text": "Carrying on after the summary."},
    ]
    limit = {"context": 10_000, "output": 1_000}
    async with scripted(script) as server, engine(project, env, server, limit=limit) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "explain everything"))
        history = await stored(runtime, session.id)
    _, summary, after = (r.body for r in server.main_requests)
    assert summary["messages"][0]["content"] == read_prompt("agents/compaction.txt")
    assert "tools" not in summary or not summary["tools"]
    assert user_texts(summary)[-1].startswith("Create a new anchored summary from the conversation history above.")
    assert user_texts(after)[0] == "What did we do so far?"
    assert after["messages"][2] == {"role": "assistant", "content": "## Goal\n- answer the question"}
    assert user_texts(after)[-1].startswith("Continue if you have next steps")
    assert texts(answer) == ["Carrying on after the summary."]
    summaries = [m.info for m in history if isinstance(m.info, AssistantMessage) and m.info.summary]
    assert len(summaries) == 1 and summaries[0].agent == "compaction"


@pytest.mark.anyio
async def test_a_context_overflow_error_replays_the_last_message_after_the_summary(
    project: Path, env: dict[str, str]
) -> None:
    overflow = {"status": 400, "code": "context_length_exceeded", "message": "maximum context length is 8192 tokens"}
    script: Script = [
        {"text": "First answer."},
        overflow,
        {"text": "Summary of the first turn."},
        {"text": "Replayed."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "first question"))
        answer = await runtime.loop.prompt(ask(session.id, "second question"))
    _, _, summary, replay = (r.body for r in server.main_requests)
    assert "first question" in user_texts(summary)[0] and "second question" not in str(summary["messages"])
    # Replayed after the summary; as a message newer than the last finished answer it reads as a queued one.
    assert "The user sent the following message:\nsecond question\n" in user_texts(replay)[-1]
    assert texts(answer) == ["Replayed."]


@pytest.mark.anyio
async def test_the_title_is_asked_exactly_once(project: Path, env: dict[str, str]) -> None:
    script = [{"text": "One."}, {"text": "Two."}]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "first message"))
        await runtime.loop.prompt(ask(session.id, "second message"))
    (title,) = server.title_requests
    assert user_texts(title.body) == ["Generate a title for this conversation:\n", "first message"]
    async with scripted([]) as server2, engine(project, env, server2) as runtime:
        renamed = await runtime.sessions.get(session.id)
    assert renamed.title == "Scripted title"
