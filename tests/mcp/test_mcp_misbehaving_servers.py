"""MCP servers that break the protocol (`mcp_misbehaving_server.py`): each failure is an ordinary error or a
status that names the server, the request and what went wrong; none crashes, hangs or hides the reason."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from engine_harness import engine, scripted
from mcp_servers import misbehaving_server

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
