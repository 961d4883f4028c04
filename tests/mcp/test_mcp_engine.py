"""MCP servers in a real runtime: their tools offered, called and answered; failures that never fail a turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from engine_harness import (
    Script,
    ask,
    engine,
    eventually,
    scripted,
    stored,
    texts,
    tool_parts,
    tool_results,
)
from mcp_servers import fixture_server, hanging_server, http_fixture_server, time_server

from strata_core.bus import Bus, McpServerFailed, PartUpdated
from strata_core.mcp import McpStatus
from strata_core.message import ToolPart, ToolStateCompleted, ToolStateError, ToolStateRunning


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


async def _prompt_collecting_failures(runtime: Any, session_id: str, text: str) -> list[McpServerFailed]:
    async with runtime.bus.subscribe() as events:
        await runtime.loop.prompt(ask(session_id, text))
        return [event for event in Bus.waiting(events) if isinstance(event, McpServerFailed)]


@pytest.mark.anyio
async def test_a_server_that_hangs_at_start_costs_the_first_request_only_its_timeout_and_is_reported_once(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [{"text": "First."}, {"text": "Second."}]
    config = {"mcp": {"stuck": hanging_server(timeout=1000), "time": time_server()}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        with anyio.fail_after(20):
            first = await _prompt_collecting_failures(runtime, session.id, "hello")
            second = await _prompt_collecting_failures(runtime, session.id, "again")
        assert runtime.mcp is not None
        statuses = await runtime.mcp.started()
    assert [(f.server, f.error) for f in first] == [("stuck", "did not start within 1000 ms")]
    assert second == []
    assert statuses["stuck"] == McpStatus("failed", "did not start within 1000 ms")
    assert statuses["time"] == McpStatus("connected")
    names = set(offered(server.main_requests[0].body))
    assert "time_get_current_time" in names and not any(name.startswith("stuck_") for name in names)
    assert len(server.main_requests) == 2


@pytest.mark.anyio
async def test_a_server_that_cannot_be_started_is_failed_with_the_reason(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"text": "Hi."}]
    config = {"mcp": {"ghost": {"type": "local", "command": ["/nonexistent/mcp-server"]}}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        failures = await _prompt_collecting_failures(runtime, session.id, "hello")
    ((name, error),) = [(f.server, f.error) for f in failures]
    assert name == "ghost" and "/nonexistent/mcp-server" in error


@pytest.mark.anyio
async def test_an_is_error_result_is_a_tool_error_and_the_turn_goes_on(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [call("fixture_refuse", {"reason": "no"})]}, {"text": "It refused."}]
    config = {"mcp": {"fixture": fixture_server()}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "try it"))
        history = await stored(runtime, session.id)
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert part.state.error == "Error executing tool refuse: refused because no"
    assert tool_results(server.main_requests[1].body) == ["Error executing tool refuse: refused because no"]


@pytest.mark.anyio
async def test_a_server_that_crashes_mid_call_gives_a_tool_error_and_the_next_turn_works(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"tool_calls": [call("fixture_crash", {})]},
        {"text": "The server died."},
        {"tool_calls": [call("fixture_shout", {"text": "x"}, "call_2")]},
        {"text": "Still answering."},
    ]
    config = {"mcp": {"fixture": fixture_server(timeout=5000)}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        with anyio.fail_after(30):
            reported = await _prompt_collecting_failures(runtime, session.id, "crash it")
            reported += await _prompt_collecting_failures(runtime, session.id, "and now?")
        history = await stored(runtime, session.id)
        assert runtime.mcp is not None
        statuses = await runtime.mcp.started()
    crashed, after = tool_parts(history)
    assert isinstance(crashed.state, ToolStateError)
    # The failed server's tools are no longer offered: the model's later call is to a tool it does not have.
    assert not [name for name in offered(server.main_requests[2].body) if name.startswith("fixture_")]
    assert after.tool == "invalid" and "unavailable tool 'fixture_shout'" in str(after.state.input)
    assert [(f.server, f.error) for f in reported] == [("fixture", "Connection closed")]
    assert statuses == {"fixture": McpStatus("failed", "Connection closed")}
    assert texts(history[-1]) == ["Still answering."]
    assert len(server.main_requests) == 4


@pytest.mark.anyio
@pytest.mark.parametrize(
    "rules",
    [
        {"permission": {"fixture_*": "deny"}},
        {"tools": {"fixture_shout": False}},
        {"agent": {"build": {"permission": {"fixture_shout": "deny"}}}},
    ],
)
async def test_a_denied_mcp_tool_is_not_offered(rules: dict[str, Any], project: Path, env: dict[str, str]) -> None:
    script: Script = [{"text": "Fine."}]
    config = {"mcp": {"fixture": fixture_server()}, **rules}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "hello"))
    names = set(offered(server.main_requests[0].body))
    assert "fixture_shout" not in names
    assert "read" in names


@pytest.mark.anyio
async def test_an_ask_rule_asks_before_the_call_and_a_refusal_stops_the_turn(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [{"tool_calls": [call("fixture_shout", {"text": "hi"})]}, {"text": "Never sent."}]
    config = {"mcp": {"fixture": fixture_server()}, "permission": {"fixture_shout": "ask"}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "shout"))
        history = await stored(runtime, session.id)
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert len(server.main_requests) == 1


@pytest.mark.anyio
async def test_a_remote_server_that_speaks_only_sse_is_reached_by_the_fallback(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"tool_calls": [call("old_shout", {"text": "hi"}), call("old_header", {}, "c2")]},
        {"text": "Done."},
    ]
    with http_fixture_server("sse") as url:
        config = {"mcp": {"old": {"type": "remote", "url": url, "headers": {"X-Test": "1"}}}}
        async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
            session = await runtime.sessions.create()
            await runtime.loop.prompt(ask(session.id, "shout"))
    assert tool_results(server.main_requests[1].body) == ["HI", "1"]


@pytest.mark.anyio
async def test_a_remote_server_gets_the_configured_headers(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [call("remote_header", {})]}, {"text": "Done."}]
    with http_fixture_server() as url:
        config = {"mcp": {"remote": {"type": "remote", "url": url, "headers": {"X-Test": "secret-1"}}}}
        async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
            session = await runtime.sessions.create()
            await runtime.loop.prompt(ask(session.id, "which header?"))
    # The server echoed the header it got: X-Test is no credential by its name, so the model sees it as it is
    # (an `Authorization` or `X-Api-Key` value would be hidden: e2e_engine/test_header_and_environment_redaction.py).
    assert tool_results(server.main_requests[1].body) == ["secret-1"]


@pytest.mark.anyio
async def test_a_disabled_server_is_not_started(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"text": "Hi."}]
    config = {"mcp": {"fixture": fixture_server(enabled=False)}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "hello"))
        assert runtime.mcp is not None
        statuses = await runtime.mcp.started()
    assert statuses == {"fixture": McpStatus("disabled")}
    assert not any(name.startswith("fixture_") for name in offered(server.main_requests[0].body))


@pytest.mark.anyio
async def test_cancelling_a_turn_cancels_a_running_mcp_call(project: Path, env: dict[str, str]) -> None:
    script: Script = [{"tool_calls": [call("fixture_wait_forever", {})]}, {"text": "Never."}]
    config = {"mcp": {"fixture": fixture_server()}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        with anyio.fail_after(20):
            async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
                group.start_soon(runtime.loop.prompt, ask(session.id, "wait"))
                async for event in events:
                    part = event.part if isinstance(event, PartUpdated) else None
                    if isinstance(part, ToolPart) and isinstance(part.state, ToolStateRunning):
                        break
                await runtime.loop.cancel(session.id)
        (part,) = tool_parts(await stored(runtime, session.id))
    assert isinstance(part.state, ToolStateError)
    assert len(server.main_requests) == 1


@pytest.mark.anyio
async def test_a_subagent_is_offered_mcp_tools_under_the_caps_it_inherits(project: Path, env: dict[str, str]) -> None:
    task = {"description": "Look it up", "prompt": "Look up a word", "subagent_type": "general"}
    script: Script = [{"tool_calls": [call("task", task)]}, {"text": "Looked up."}, {"text": "Done."}]
    config = {"mcp": {"fixture": fixture_server()}, "experimental": {"primary_tools": ["fixture_shout"]}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "delegate"))
    primary, subagent = (set(offered(request.body)) for request in server.main_requests[:2])
    assert {"fixture_shout", "fixture_look_up"} <= primary
    assert "fixture_look_up" in subagent and "fixture_shout" not in subagent


LIFECYCLE = {"MCP_FIXTURE_LIFECYCLE": "1"}


async def _until_failed(runtime: Any, name: str) -> McpStatus:
    """The server's status once it is no longer connected (a server that stays connected fails the test)."""
    connection = runtime.mcp.connections[name]

    async def gone() -> bool:
        return bool(connection.status.status != "connected")

    await eventually(gone, f"MCP server {name} to be no longer connected")
    status: McpStatus = connection.status
    return status


@pytest.mark.anyio
async def test_a_server_that_exits_between_turns_is_failed_at_once_and_its_tools_are_no_longer_offered(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"tool_calls": [call("fixture_exit_soon", {})]},
        {"text": "It said goodbye."},
        {"text": "No fixture tools now."},
    ]
    config = {"mcp": {"fixture": fixture_server(environment=LIFECYCLE)}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "say goodbye"))
        status = await _until_failed(runtime, "fixture")
        reported = await _prompt_collecting_failures(runtime, session.id, "what can you use?")
    assert status == McpStatus("failed", "Connection closed")
    assert "fixture_shout" in offered(server.main_requests[0].body)
    assert not [name for name in offered(server.main_requests[2].body) if name.startswith("fixture_")]
    assert [(f.server, f.error) for f in reported] == [("fixture", "Connection closed")]


@pytest.mark.anyio
async def test_tools_a_server_adds_are_offered_once_it_says_its_list_changed(
    project: Path, env: dict[str, str]
) -> None:
    script: Script = [
        {"tool_calls": [call("fixture_add_tool", {"name": "late"})]},
        {"text": "Added."},
        {"tool_calls": [call("fixture_late", {}, "call_2")]},
        {"text": "It answered."},
    ]
    config = {"mcp": {"fixture": fixture_server(environment=LIFECYCLE)}}
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "add a tool"))
        servers = runtime.mcp
        assert servers is not None

        async def listed() -> bool:  # the list is fetched again in the connection's task, soon after the notice
            return "fixture_late" in {tool.name for tool in await servers.tools()}

        await eventually(listed, "the added tool to be listed")
        await runtime.loop.prompt(ask(session.id, "use it"))
        history = await stored(runtime, session.id)
    assert "fixture_late" not in offered(server.main_requests[0].body)
    assert offered(server.main_requests[2].body)["fixture_late"]["description"] == "Added while running: late."
    late = tool_parts(history)[-1]
    assert isinstance(late.state, ToolStateCompleted) and late.state.output == "late answers"


@pytest.mark.anyio
@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_a_remote_server_stays_connected_across_calls(transport: str, project: Path, env: dict[str, str]) -> None:
    """Watching a server's stream for its end must not take a remote transport's quiet spells for one."""
    script: Script = [
        {"tool_calls": [call("remote_shout", {"text": "one"})]},
        {"tool_calls": [call("remote_shout", {"text": "two"}, "call_2")]},
        {"text": "Both."},
    ]
    with http_fixture_server(transport) as url:
        config = {"mcp": {"remote": {"type": "remote", "url": url}}}
        async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
            session = await runtime.sessions.create()
            await runtime.loop.prompt(ask(session.id, "shout twice"))
            await anyio.sleep(0.5)  # a moment of quiet, in which a closed stream would be noticed
            assert runtime.mcp is not None
            statuses = await runtime.mcp.started()
    assert tool_results(server.main_requests[1].body) == ["ONE"]
    assert tool_results(server.main_requests[2].body) == ["ONE", "TWO"]
    assert statuses == {"remote": McpStatus("connected")}
    assert "remote_shout" in offered(server.main_requests[2].body)
