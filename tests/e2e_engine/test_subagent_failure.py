"""A subagent whose turn fails (its model call refused) fails the task: the parent model gets a tool error naming
the task and the reason, not an empty `completed` answer it would take for the subagent's result."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted, stored, tool_parts, tool_results

from strata_core.message import ToolStateCompleted, ToolStateError

TASK = {"description": "look around", "prompt": "read a.txt", "subagent_type": "general"}


@pytest.mark.anyio
async def test_a_subagents_refused_model_call_is_the_tasks_error(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"tool_calls": [{"name": "task", "arguments": TASK, "id": "t1"}]},
        {"status": 400, "message": "bad request from provider"},  # the subagent's call: not retried
        {"text": "The subagent failed; doing it myself."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "delegate it"))
        (child,) = await runtime.sessions.children(session.id)
        (part,) = tool_parts(await stored(runtime, session.id))
    assert isinstance(part.state, ToolStateError), part.state
    expected = f"Subagent failed (task_id: {child.id}): "
    assert part.state.error.startswith(expected) and "bad request from provider" in part.state.error
    (result,) = tool_results(server.main_requests[2].body)
    assert result.startswith(expected) and "bad request from provider" in result


@pytest.mark.anyio
async def test_a_subagent_that_answers_still_completes_the_task(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"tool_calls": [{"name": "task", "arguments": TASK, "id": "t1"}]},
        {"text": "a.txt says hello"},
        {"text": "Done."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "delegate it"))
        (part,) = tool_parts(await stored(runtime, session.id))
    assert isinstance(part.state, ToolStateCompleted)
    assert 'state="completed">\n<task_result>\na.txt says hello\n</task_result>' in part.state.output
    assert len(server.main_requests) == 3
