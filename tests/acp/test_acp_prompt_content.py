"""What the model is sent for an editor's prompt content blocks, through a real `strata acp`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp import embedded_text_resource, image_block, resource_block, text_block
from acp_client import FS_CLIENT, STRATA_ACP, acp_agent, configure

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name", ["notes.txt", "not-on-disk.txt"])
async def test_an_embedded_file_is_the_editors_buffer_text_not_the_file_on_disk(
    name: str, project: Path, env: dict[str, str]
) -> None:
    path = project / name
    buffer = resource_block(embedded_text_resource(path.as_uri(), "UNSAVED BUFFER\n", mime_type="text/plain"))
    with ScriptedServer([{"text": "ok"}]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            answer = await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("look"), buffer])

    assert answer.stop_reason == "end_turn"
    sent = json.dumps(server.main_requests[-1].body["messages"])
    assert f"[{path}]\\nUNSAVED BUFFER" in sent
    assert "alpha" not in sent and "File not found" not in sent


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


async def test_an_image_reaches_the_model_and_leaves_no_file_behind(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    with ScriptedServer([{"text": "ok"}]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env={**env, "TMPDIR": str(temp)}) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            image = image_block(PNG, "image/png")
            answer = await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("see"), image])
            left = sorted(p.name for p in temp.glob("strata-acp-*"))

    assert answer.stop_reason == "end_turn"
    assert PNG in json.dumps(server.main_requests[-1].body["messages"])
    assert left == []
