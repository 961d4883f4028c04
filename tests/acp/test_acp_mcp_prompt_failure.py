"""A `/server:prompt` an editor sends whose MCP server fails to give the prompt: the prompt request is refused
as invalid params with what went wrong, and the session goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from acp import RequestError, text_block
from acp_client import FS_CLIENT, STRATA_ACP, acp_agent, configure
from mcp_servers import misbehaving_server, wait_for_no_leftovers

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_server_outlives_its_test() -> Iterator[None]:
    yield
    assert wait_for_no_leftovers() == [], "MCP server processes were left running"


async def test_a_prompt_its_server_answers_with_an_error_is_refused_with_the_reason(
    project: Path, env: dict[str, str]
) -> None:
    with ScriptedServer([{"text": "Still here."}]) as server:
        configure(project, server.base_url)
        config = json.loads((project / "opencode.json").read_text())
        config["mcp"] = {"bad": misbehaving_server("prompt-error")}
        (project / "opencode.json").write_text(json.dumps(config))
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            with anyio.fail_after(30), pytest.raises(RequestError) as refused:
                await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("/bad:p1 hi")])
            after = await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
    assert refused.value.code == -32602
    reason = 'MCP server "bad" answered prompts/get "p1" with an error: Missing required argument: topic'
    assert refused.value.data == {"sessionId": session.session_id, "reason": reason}
    assert after.stop_reason == "end_turn"
