"""Turns that go right, and tool calls that go wrong, over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted, stored, texts, tool_parts, tool_results, user_texts

from strata_core.message import AssistantMessage, ToolStateCompleted, ToolStateError


@pytest.mark.anyio
async def test_a_text_turn(project: Path, env: dict[str, str]) -> None:
    async with scripted([{"text": "Hello from the model."}]) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "say hello"))
        history = await stored(runtime, session.id)
    (request,) = server.main_requests
    body = request.body
    assert body["model"] == "mock-model" and body["stream"] is True
    assert body["messages"][0]["role"] == "system" and "Workspace root folder" in body["messages"][0]["content"]
    assert user_texts(body) == ["say hello"]
    assert [t["function"]["name"] for t in body["tools"]] == sorted(t["function"]["name"] for t in body["tools"])
    assert request.headers["x-session-affinity"] == session.id
    assert texts(answer) == ["Hello from the model."]
    assert [m.info.role for m in history] == ["user", "assistant"]
    info = history[1].info
    assert isinstance(info, AssistantMessage) and info.finish == "stop" and info.tokens.input == 10


@pytest.mark.anyio
async def test_a_chain_of_tool_calls(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"tool_calls": [{"name": "glob", "arguments": {"pattern": "**/*.py"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(project / "src" / "app.py")}}]},
        {"text": "app.py prints hello."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "what does the app do?"))
        history = await stored(runtime, session.id)
    first, second, third = (r.body for r in server.main_requests)
    assert tool_results(first) == []
    assert "src/app.py" in tool_results(second)[0]
    _, read_result = tool_results(third)
    assert "1: print('hello')" in read_result
    assert texts(answer) == ["app.py prints hello."]
    assert [p.tool for p in tool_parts(history)] == ["glob", "read"]
    assert all(isinstance(p.state, ToolStateCompleted) for p in tool_parts(history))


@pytest.mark.anyio
async def test_parallel_tool_calls_answer_together(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {
            "tool_calls": [
                {"name": "read", "arguments": {"filePath": str(project / "notes.txt")}},
                {"name": "bash", "arguments": {"command": "echo parallel", "description": "Echo"}},
            ]
        },
        {"text": "Both done."},
    ]
    async with scripted(script) as server, engine(project, env, server, mode="auto") as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "do both"))
        history = await stored(runtime, session.id)
    second = server.main_requests[1].body
    calls = next(m for m in second["messages"] if m["role"] == "assistant" and m.get("tool_calls"))["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["read", "bash"]
    results = tool_results(second)
    assert "1: alpha" in results[0] and "parallel" in results[1]
    assert len(tool_parts(history)) == 2


@pytest.mark.anyio
async def test_an_invalid_tool_call_that_the_model_then_corrects(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"tool_calls": [{"name": "raed", "arguments": {"filePath": "notes.txt"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(project / "notes.txt")}}]},
        {"text": "Read it."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "read the notes"))
        history = await stored(runtime, session.id)
    invalid = tool_results(server.main_requests[1].body)[0]
    assert "Model tried to call unavailable tool 'raed'" in invalid
    assert [p.tool for p in tool_parts(history)] == ["invalid", "read"]
    assert "1: alpha" in tool_results(server.main_requests[2].body)[1]


@pytest.mark.anyio
async def test_a_tool_that_fails_reports_its_error_to_the_model(project: Path, env: dict[str, str]) -> None:
    missing = project / "missing.txt"
    script: Script = [
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(missing)}}]},
        {"text": "It is missing."},
    ]
    async with scripted(script) as server, engine(project, env, server) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "read missing.txt"))
        history = await stored(runtime, session.id)
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert tool_results(server.main_requests[1].body) == [part.state.error]
    assert texts(answer) == ["It is missing."]


@pytest.mark.anyio
async def test_the_configured_tool_output_limits_cut_tool_output(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 10", "description": "Count"}}]},
        {"text": "Counted."},
    ]
    limits = {"tool_output": {"max_lines": 3, "max_bytes": 1000}}
    async with scripted(script) as server, engine(project, env, server, mode="auto", extra_config=limits) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "count to ten"))
    first, second = (r.body for r in server.main_requests)
    (bash,) = [t["function"] for t in first["tools"] if t["function"]["name"] == "bash"]
    assert "longer than 3 lines or 1000 bytes" in bash["description"]
    (result,) = tool_results(second)
    assert result.startswith("...output truncated...\n\nFull output saved to: ")
    assert result.endswith("\n\n9\n10\n")
