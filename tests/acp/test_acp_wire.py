"""`strata acp` against clients that misbehave on the wire: stdin closed mid-turn, lines that are not
messages, error answers that are not objects. Driven raw (`acp_raw`), since the library's client cannot."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp_client import STRATA_ACP, configure
from acp_raw import RawAgent

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio

INITIALIZE = b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":1}}'
SLEEP = [{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 123", "description": "wait"}}]}]


async def started(agent: RawAgent, project: Path) -> str:
    await agent.result("initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"writeTextFile": True}}})
    session = await agent.result("session/new", {"cwd": str(project), "mcpServers": []})
    return str(session["sessionId"])


def prompt(agent: RawAgent, session_id: str, text: str) -> asyncio.Future[dict[str, Any]]:
    return agent.start("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]})


async def never(message: dict[str, Any]) -> dict[str, Any] | None:
    return None


async def exits_soon(agent: RawAgent) -> int:
    return await asyncio.wait_for(agent.process.wait(), 10)


async def test_closing_stdin_while_a_tool_runs_ends_the_agent(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer(SLEEP, done_text="Done.") as server:
        configure(project, server.base_url)
        async with RawAgent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            answer = prompt(agent, session_id, "wait")
            await agent.until(lambda: any(u.get("status") == "in_progress" for u in agent.updates(session_id)))
            agent.close_stdin()
            assert await exits_soon(agent) == 0
            # The prompt it was answering is answered before it goes, as cancelled.
            assert (await asyncio.wait_for(answer, 5))["result"]["stopReason"] == "cancelled"


async def test_closing_stdin_while_a_permission_question_is_open_ends_the_agent(
    project: Path, env: dict[str, str]
) -> None:
    with ScriptedServer(SLEEP, done_text="Done.") as server:
        configure(project, server.base_url)
        async with RawAgent(STRATA_ACP, cwd=project, env=env, answer=never) as agent:
            session_id = await started(agent, project)
            answer = prompt(agent, session_id, "wait")
            await agent.until(lambda: bool(agent.requests("session/request_permission")))
            agent.close_stdin()
            assert await exits_soon(agent) == 0
            assert (await asyncio.wait_for(answer, 5))["result"]["stopReason"] == "cancelled"


@pytest.mark.parametrize("line", [b"[" + INITIALIZE + b"]", b"[]", b'"a string"', b"123", b"true", b"null"])
async def test_a_line_that_is_not_an_object_is_an_invalid_request_and_the_agent_serves_on(
    line: bytes, project: Path, env: dict[str, str]
) -> None:
    async with RawAgent(STRATA_ACP, cwd=project, env=env) as agent:
        await agent.send_line(line)
        answer = await agent.request("initialize", {"protocolVersion": 1})
        assert answer["result"]["protocolVersion"] == 1
        assert [(e["id"], e["error"]["code"]) for e in agent.errors()] == [(None, -32600)]
        agent.close_stdin()
        assert await exits_soon(agent) == 0


@pytest.mark.parametrize("line", [b'{"jsonrpc": "2.0", "id": 1,', b"[" * 100_000 + b"]" * 100_000])
async def test_a_line_that_does_not_parse_is_a_parse_error(line: bytes, project: Path, env: dict[str, str]) -> None:
    async with RawAgent(STRATA_ACP, cwd=project, env=env) as agent:
        await agent.send_line(line)
        await agent.request("initialize", {"protocolVersion": 1})
        assert [(e["id"], e["error"]["code"]) for e in agent.errors()] == [(None, -32700)]


async def test_a_request_whose_id_is_an_object_is_an_invalid_request(project: Path, env: dict[str, str]) -> None:
    async with RawAgent(STRATA_ACP, cwd=project, env=env) as agent:
        await agent.send({"id": {"a": 1}, "method": "initialize", "params": {"protocolVersion": 1}})
        await agent.request("initialize", {"protocolVersion": 1})
        assert [(e["id"], e["error"]["code"]) for e in agent.errors()] == [(None, -32600)]


@pytest.mark.parametrize("method", ["session/request_permission", "fs/write_text_file"])
async def test_an_error_answer_that_is_not_an_object_fails_that_request_only(
    method: str, project: Path, env: dict[str, str]
) -> None:
    async def boom(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["method"] == method:
            return {"error": "boom"}
        return {"result": {"outcome": {"outcome": "selected", "optionId": "once"}}}

    target = project / "new.txt"
    script = [{"tool_calls": [{"name": "write", "arguments": {"filePath": str(target), "content": "fresh\n"}}]}]
    with ScriptedServer(script, done_text="Wrote it.") as server:
        configure(project, server.base_url)
        async with RawAgent(STRATA_ACP, cwd=project, env=env, answer=boom) as agent:
            session_id = await started(agent, project)
            answer = await asyncio.wait_for(prompt(agent, session_id, "write it"), 30)
            assert answer["result"]["stopReason"] == "end_turn"
            assert "result" in await agent.request("session/list", {})
            agent.close_stdin()
            assert await exits_soon(agent) == 0

    statuses = [u.get("status") for u in agent.updates(session_id) if u["sessionUpdate"] == "tool_call_update"]
    # A failed permission answer is a "no": the write does not happen. A failed write notice changes nothing.
    rejected = method == "session/request_permission"
    assert statuses[-1] == ("failed" if rejected else "completed")
    assert target.exists() is not rejected


async def test_an_unanswered_file_write_notice_holds_up_neither_the_turn_nor_the_session(
    project: Path, env: dict[str, str]
) -> None:
    async def no_write_answer(message: dict[str, Any]) -> dict[str, Any] | None:
        if message["method"] == "fs/write_text_file":
            return None
        return {"result": {"outcome": {"outcome": "selected", "optionId": "once"}}}

    target = project / "new.txt"
    script = [{"tool_calls": [{"name": "write", "arguments": {"filePath": str(target), "content": "fresh\n"}}]}]
    with ScriptedServer([*script, {"text": "Wrote it."}], done_text="Again.") as server:
        configure(project, server.base_url)
        async with RawAgent(STRATA_ACP, cwd=project, env=env, answer=no_write_answer) as agent:
            session_id = await started(agent, project)
            first = await asyncio.wait_for(prompt(agent, session_id, "write it"), 30)
            second = await asyncio.wait_for(prompt(agent, session_id, "again"), 30)
            closed = await agent.request("session/close", {"sessionId": session_id})

    assert first["result"]["stopReason"] == second["result"]["stopReason"] == "end_turn"
    assert "result" in closed
    # The notice went out during the turn that wrote the file, before that turn's response.
    order = [m.get("method") or m["id"] for m in agent.received if m.get("method") != "session/update"]
    assert order.index("fs/write_text_file") < order.index(first["id"])


async def test_two_prompts_sent_together_run_one_turn_and_refuse_the_second(project: Path, env: dict[str, str]) -> None:
    script = [{"text": "one two three", "chunk_size": 4, "delay": 0.05}]
    with ScriptedServer(script, done_text="Again.") as server:
        configure(project, server.base_url)
        async with RawAgent(STRATA_ACP, cwd=project, env=env) as agent:
            session_id = await started(agent, project)
            lines = [
                json.dumps({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": params}).encode()
                for id, params in [
                    (501, {"sessionId": session_id, "prompt": [{"type": "text", "text": "first"}]}),
                    (502, {"sessionId": session_id, "prompt": [{"type": "text", "text": "second"}]}),
                ]
            ]
            await agent.send_line(b"\n".join(lines))
            await agent.until(lambda: {501, 502} <= {m.get("id") for m in agent.received})

    answers = {m["id"]: m for m in agent.received if m.get("id") in (501, 502)}
    assert answers[501]["result"]["stopReason"] == "end_turn"
    assert answers[502]["error"]["code"] == -32600
    assert answers[502]["error"]["data"]["reason"] == "a prompt is already running"
    chunks = [u["content"]["text"] for u in agent.updates(session_id) if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(chunks) == "one two three"
    assert [r.body["messages"][-1]["content"] for r in server.main_requests] == ["first"]
