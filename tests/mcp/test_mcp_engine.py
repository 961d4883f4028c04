"""MCP servers in a real runtime: their tools offered, called and answered; failures that never fail a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engine_harness import Script, ask, engine, scripted, stored, tool_parts, tool_results
from mcp_servers import fixture_server, hanging_server, http_fixture_server, time_server

from strata_core.bus import McpServerFailed
from strata_core.message import ToolStateCompleted, ToolStateError


def offered(body: dict[str, Any]) -> dict[str, Any]:
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


def call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


@pytest.mark.anyio
async def test_a_local_server_from_pypi_offers_its_tools_and_answers_a_call(project: Path, env: dict[str, str]) -> None:
    script: Script = [
        {
            "tool_calls": [
                call("time_convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"})
            ]
        },
        {"text": "It is nine in the evening there."},
    ]
    config = {"mcp": {"time": time_server()}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "what time is noon UTC in Tokyo?"))
        history = await stored(runtime, session.id)
    tools = offered(server.main_requests[0].body)
    assert {"time_get_current_time", "time_convert_time", "list_mcp_resources", "read_mcp_resource"} <= set(tools)
    assert tools["time_get_current_time"]["description"] == "Get current time in a specific timezone"
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateCompleted)
    (result,) = tool_results(server.main_requests[1].body)
    assert '"timezone": "Asia/Tokyo"' in result and '"time_difference": "+9.0h"' in result
