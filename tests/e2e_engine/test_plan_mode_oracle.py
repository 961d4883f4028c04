"""Experimental plan mode sends what OpenCode 1.18.33 sent, reminder for reminder, through plan_exit.

`tests/oracle_fixtures/captures/opencode-plan-exit-{yes,no}` were recorded by `plan_exit_capture.py` from the
real `opencode serve` with OPENCODE_EXPERIMENTAL_PLAN_MODE=1 on the `plan-mode` fixture: the plan agent
writes its plan file, calls plan_exit, and the user says Yes (the build agent takes over) or No. Here the
runtime plays the same script on a copy of the fixture, answering the same way, and the requests are
compared after the run's paths and the plan file's name (creation time and slug) are normalised.

Compared: each conversation message's role and shape, where every synthetic `<system-reminder>` part is
reduced to its interface (the lines naming the plan file, and what follows the closing tag), since the
reminder prose is each product's own; tool calls, tool results and the approval text exactly; whether
plan_exit is offered in each request, and its schema without descriptions. Not compared: OpenCode's
`question` tool (Strata asks through the permission flow and has no question tool) and the system prompt.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from engine_harness import ask, engine, questions, scripted, stored, tool_parts

from strata_core.bus import PermissionAsked
from strata_core.message import ToolStateError
from strata_core.runtime import Runtime
from strata_providers.testing.script import parse_script

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures"
CAPTURES = FIXTURES / "captures"
FLAG = {"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}
PROMPT = "plan a shout function in greet.py"
PLAN_NAME = re.compile(r"plans/\d{13}-[a-z0-9-]+\.md")
REMINDER_OPEN, REMINDER_CLOSE = "<system-reminder>", "</system-reminder>"


def normalise(text: str, work: str) -> str:
    return PLAN_NAME.sub("plans/<PLAN>.md", text.replace(work, "<WORK>"))


def part_shape(text: str, work: str) -> Any:
    """A user part as compared: a reminder by the lines naming the plan and its tail; anything else exactly."""
    text = normalise(text, work)
    if not text.startswith(REMINDER_OPEN):
        return text
    body, _, tail = text.partition(REMINDER_CLOSE)
    return {"reminder": [line for line in body.splitlines() if "<PLAN>" in line], "tail": tail}


def conversation(body: dict[str, Any], work: str) -> list[Any]:
    shaped: list[Any] = []
    for message in body["messages"][1:]:
        content = message.get("content")
        if message["role"] == "user":
            parts = [{"text": content}] if isinstance(content, str) else content
            shaped.append(("user", [part_shape(p["text"], work) for p in parts]))
        elif message["role"] == "assistant":
            calls = [
                (c["function"]["name"], json.loads(normalise(c["function"]["arguments"], work)))
                for c in message.get("tool_calls", [])
            ]
            shaped.append(("assistant", content or None, calls))
        else:
            shaped.append((message["role"], normalise(content, work)))
    return shaped


def without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_descriptions(v) for k, v in schema.items() if k != "description"}
    return schema


def plan_exit_schema(body: dict[str, Any]) -> Any:
    """plan_exit's parameters (descriptions dropped) when the request offers it, else None."""
    found = [t["function"]["parameters"] for t in body["tools"] if t["function"]["name"] == "plan_exit"]
    return without_descriptions(found[0]) if found else None


def recorded(answer: str) -> tuple[list[dict[str, Any]], str, list[dict[str, Any]]]:
    folder = CAPTURES / f"opencode-plan-exit-{answer}"
    bodies = [json.loads(p.read_text()) for p in sorted(folder.glob("[0-9][0-9][0-9].json"))]
    messages = json.loads((folder / "messages.json").read_text())
    return bodies, (folder / "workdir.txt").read_text().strip(), messages


def opencode_project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(FIXTURES / "plan-mode", work)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


async def run_plan_turn(runtime: Runtime, work: Path, reply: str, server: Any) -> str:
    """The captured turn: write the plan, call plan_exit, answer `reply`; the session id."""
    session = await runtime.sessions.create()
    plan_mode = runtime.container.plan_mode()
    assert plan_mode is not None
    plan = await plan_mode.plan_file(await runtime.sessions.get(session.id))
    content = "# Plan\n\n1. Add `shout(name)` to greet.py returning greet(name).upper().\n"
    server.script = parse_script(
        [
            {"tool_calls": [{"name": "write", "arguments": {"filePath": str(plan), "content": content}}]},
            {"tool_calls": [{"name": "plan_exit", "arguments": {}}]},
            {"text": "Implementing the plan now."},
        ]
    )
    async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:

        async def answer() -> None:
            async for event in events:
                if isinstance(event, PermissionAsked):
                    questions(runtime).reply(event.request.id, reply)  # type: ignore[arg-type]

        group.start_soon(answer)
        await runtime.loop.prompt(ask(session.id, PROMPT, agent="plan"))
        group.cancel_scope.cancel()
    return session.id


@pytest.mark.anyio
@pytest.mark.parametrize(("answer", "reply"), [("yes", "once"), ("no", "reject")])
async def test_plan_mode_requests_match_what_opencode_sent(
    tmp_path: Path, env: dict[str, str], answer: str, reply: str
) -> None:
    work = opencode_project(tmp_path)
    async with scripted([]) as server:
        config = work / "opencode.json"
        config.write_text(config.read_text().replace("__PORT__", str(server.port)))
        async with engine(work, env | FLAG, server, mode="interactive") as runtime:
            session_id = await run_plan_turn(runtime, work, reply, server)
            history = await stored(runtime, session_id)
    theirs, their_work, their_messages = recorded(answer)
    ours = [r.body for r in server.main_requests]
    assert len(ours) == len(theirs)
    for mine, recorded_body in zip(ours, theirs, strict=True):
        assert conversation(mine, str(work)) == conversation(recorded_body, their_work)
        assert plan_exit_schema(mine) == plan_exit_schema(recorded_body)
    assert [plan_exit_schema(b) is not None for b in ours] == [True, True, False][: len(ours)]
    assert [m.info.agent for m in history] == [m["info"]["agent"] for m in their_messages]
    if answer == "no":
        their_error = their_messages[-1]["parts"][1]["state"]["error"]
        part = tool_parts(history)[-1]
        assert isinstance(part.state, ToolStateError) and part.state.error == their_error


def test_the_capture_shows_the_shapes_this_test_relies_on() -> None:
    """Guards the normalisation: OpenCode's plan-mode reminder names the plan, its build switch appends where it is."""
    bodies, work, _ = recorded("yes")
    first_user = conversation(bodies[0], work)[0]
    assert first_user == (
        "user",
        [
            PROMPT,
            {
                "reminder": [
                    "No plan file exists yet. You should create your plan at <WORK>/.opencode/plans/<PLAN>.md "
                    "using the write tool."
                ],
                "tail": "\n",
            },
        ],
    )
    handover = conversation(bodies[2], work)[-1]
    assert handover == (
        "user",
        [
            "The plan at .opencode/plans/<PLAN>.md has been approved, you can now edit files. Execute the plan",
            {
                "reminder": [],
                "tail": "\n\n\nA plan file exists at <WORK>/.opencode/plans/<PLAN>.md. "
                "You should execute on the plan defined within it",
            },
        ],
    )
