"""MCP servers that break the protocol (`mcp_misbehaving_server.py`): each failure is an ordinary error or a
status that names the server, the request and what went wrong; none crashes, hangs or hides the reason."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from engine_harness import engine, scripted
from mcp_servers import misbehaving_server

from strata_core.mcp import McpStatus
from strata_core.mcp.connection import MAX_PAGES
from strata_core.mcp.requests import McpRequestError

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("prompt-error", 'MCP server "bad" answered prompts/get "p1" with an error: Missing required argument: topic'),
        ("prompt-silent", 'MCP server "bad" did not answer prompts/get "p1" within 1500 ms'),
        ("prompt-malformed", 'MCP server "bad" answered prompts/get "p1" with a malformed result (messages: Input sh'),
    ],
)
async def test_a_prompt_the_server_fails_to_give_is_an_error_naming_the_server_the_prompt_and_why(
    word: str, reason: str, project: Path, env: dict[str, str]
) -> None:
    config = {"mcp": {"bad": misbehaving_server(word, timeout=1500)}}
    async with scripted([]) as server, engine(project, env, server, extra_config=config) as runtime:
        with anyio.fail_after(20), pytest.raises(McpRequestError) as raised:
            await runtime.container.command_prompts().prepare("bad:p1", "")
    assert str(raised.value).startswith(reason)


async def test_a_server_whose_tool_listing_never_ends_fails_at_start_saying_so(
    project: Path, env: dict[str, str]
) -> None:
    config = {"mcp": {"bad": misbehaving_server("endless-tools", timeout=20_000)}}
    async with scripted([]) as server, engine(project, env, server, extra_config=config) as runtime:
        assert runtime.mcp is not None
        with anyio.fail_after(15):
            statuses = await runtime.mcp.started()
    assert statuses["bad"] == McpStatus(
        "failed", f"had more than {MAX_PAGES} pages of tools/list; the listing was stopped"
    )


@pytest.mark.parametrize(
    ("word", "listing", "reason"),
    [
        ("endless-prompts", "prompts", f"had more than {MAX_PAGES} pages of prompts/list; the listing was stopped"),
        ("repeated-prompts", "prompts", "sent a prompts/list cursor a second time, so its listing never ends"),
        (
            "endless-resources",
            "resources",
            f"had more than {MAX_PAGES} pages of resources/list; the listing was stopped",
        ),
    ],
)
async def test_a_listing_that_never_ends_is_stopped_with_an_error_saying_so(
    word: str, listing: str, reason: str, project: Path, env: dict[str, str]
) -> None:
    config = {"mcp": {"bad": misbehaving_server(word)}}
    async with scripted([]) as server, engine(project, env, server, extra_config=config) as runtime:
        assert runtime.mcp is not None
        await runtime.mcp.started()
        connection = runtime.mcp.connections["bad"]
        with anyio.fail_after(15), pytest.raises(McpRequestError) as raised:
            await (connection.prompts() if listing == "prompts" else connection.resources())
        with anyio.fail_after(15):
            commands = [command.name for command in await runtime.container.commands().list()]
    assert str(raised.value) == f'MCP server "bad" {reason}'
    assert "bad:p1" not in commands or listing == "resources"


async def test_a_local_server_that_explains_on_stderr_why_it_exits_is_failed_with_its_last_lines(
    project: Path, env: dict[str, str]
) -> None:
    config = {"mcp": {"bad": misbehaving_server("explain-and-exit"), "flood": misbehaving_server("flood-and-exit")}}
    async with scripted([]) as server, engine(project, env, server, extra_config=config) as runtime:
        assert runtime.mcp is not None
        with anyio.fail_after(20):
            statuses = await runtime.mcp.started()
    said = "starting the server | reading settings from /etc/nothing.toml | fatal: the API token is missing"
    assert statuses["bad"] == McpStatus("failed", f"Connection closed; its stderr ended with: {said}")
    flood = statuses["flood"].error or ""
    assert flood.startswith("Connection closed; its stderr ended with: line 9999 | ?[31mxxx")
    assert flood.endswith(f"x | {said}") and len(flood) < 600  # the last lines, each cut short


async def test_a_tool_with_an_array_input_schema_fails_its_server_with_a_plain_reason(
    project: Path, env: dict[str, str]
) -> None:
    config = {"mcp": {"bad": misbehaving_server("array-schema")}}
    async with scripted([]) as server, engine(project, env, server, extra_config=config) as runtime:
        assert runtime.mcp is not None
        with anyio.fail_after(20):
            statuses = await runtime.mcp.started()
    reason = "answered tools/list with a malformed result (tools[2].inputSchema.type: Input should be 'object')"
    assert statuses["bad"] == McpStatus("failed", reason)
