"""MCP servers given by the editor (`mcpServers` of `session/new`, `session/load`): started for that session
through Strata's MCP service, their tools offered to the model in that session's turns only, closed with the
session. The servers are real: `mcp-server-time` from PyPI over stdio, the suite's fixture server over
streamable HTTP."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import text_block
from acp.schema import EnvVariable, HttpHeader, HttpMcpServer, McpServerStdio
from acp_client import FS_CLIENT, STRATA_ACP, acp_agent, configure
from mcp_servers import OWNER, http_fixture_server, leftover_servers, wait_for_no_leftovers

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_server_outlives_its_test() -> Iterator[None]:
    yield
    assert wait_for_no_leftovers() == [], "MCP server processes were left running"


def time_server() -> McpServerStdio:
    """`mcp-server-time` as an editor names it, marked so the test can find its process."""
    marker = EnvVariable(name=OWNER, value=str(os.getpid()))
    return McpServerStdio(name="time", command=sys.executable, args=["-m", "mcp_server_time"], env=[marker])


def server_commands() -> list[bytes]:
    """The command lines of this test's MCP server processes (the sandbox's wrappers among them)."""
    return [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in leftover_servers()]


def offered(request_body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request_body.get("tools", [])}


async def test_a_stdio_server_from_session_new_serves_that_session_and_closes_with_it(
    project: Path, env: dict[str, str]
) -> None:
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "time_get_current_time", "arguments": {"timezone": "UTC"}}]},
        {"text": "It is now."},
        {"text": "No clock here."},
    ]
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            with_clock = await agent.conn.new_session(cwd=str(project), mcp_servers=[time_server()])
            without = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            agent.clear()
            answer = await agent.conn.prompt(session_id=with_clock.session_id, prompt=[text_block("what time?")])
            statuses = agent.tool_statuses()
            results = [u for u in agent.updates() if u.get("status") == "completed"]
            other = await agent.conn.prompt(session_id=without.session_id, prompt=[text_block("and here?")])
            running = await anyio.to_thread.run_sync(server_commands)
            await agent.conn.close_session(session_id=with_clock.session_id)
            closed = await anyio.to_thread.run_sync(wait_for_no_leftovers)

    assert answer.stop_reason == other.stop_reason == "end_turn"
    assert {"time_get_current_time", "time_convert_time"} <= offered(server.main_requests[0].body)
    assert not any(name.startswith("time_") for name in offered(server.main_requests[2].body))
    assert [status for _, _, status in statuses] == ["pending", "in_progress", "completed"]
    assert '"timezone": "UTC"' in results[0]["content"][0]["content"]["text"]
    assert any(b"mcp_server_time" in command for command in running) and closed == []


async def test_an_http_server_given_at_load_carries_the_editors_headers(project: Path, env: dict[str, str]) -> None:
    script: list[dict[str, Any]] = [
        {"text": "Made."},
        {"tool_calls": [{"name": "fixture_header", "arguments": {}}]},
        {"text": "Header seen."},
    ]
    with http_fixture_server() as url, ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as first:
            await first.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await first.conn.new_session(cwd=str(project), mcp_servers=[])
            await first.conn.prompt(session_id=session.session_id, prompt=[text_block("start")])
        remote = HttpMcpServer(
            type="http", name="fixture", url=url, headers=[HttpHeader(name="X-Test", value="from-editor")]
        )
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as second:
            await second.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            await second.conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[remote])
            second.clear()
            answer = await second.conn.prompt(session_id=session.session_id, prompt=[text_block("which header?")])

    assert answer.stop_reason == "end_turn"
    assert "fixture_header" not in offered(server.main_requests[0].body)
    assert "fixture_header" in offered(server.main_requests[1].body)
    completed = [u for u in second.updates() if u.get("status") == "completed"]
    assert completed[0]["content"][0]["content"]["text"] == "from-editor"
