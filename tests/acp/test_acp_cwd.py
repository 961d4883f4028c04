"""A session's `cwd` in `strata acp`: ACP says it is the session's working directory, an absolute path."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp_client import FS_CLIENT, STRATA_ACP, acp_agent, configure

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


async def test_a_cwd_that_is_not_an_absolute_directory_is_an_invalid_params_error(
    project: Path, env: dict[str, str]
) -> None:
    bad = {
        "relative/dir": "cwd must be an absolute path",
        "": "cwd must be an absolute path",
        str(project / "missing"): "cwd does not exist",
        str(project / "notes.txt"): "cwd is not a directory",
    }
    refused: dict[str, str] = {}
    with ScriptedServer([]) as server:
        configure(project, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            for cwd in bad:
                with pytest.raises(RequestError) as error:
                    await agent.conn.new_session(cwd=cwd, mcp_servers=[])
                assert error.value.code == -32602
                assert isinstance(error.value.data, dict)
                refused[cwd] = error.value.data["reason"]
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            with pytest.raises(RequestError):
                await agent.conn.load_session(cwd="relative", session_id=session.session_id, mcp_servers=[])

    assert refused == bad


def other_project(tmp_path: Path, base_url: str) -> Path:
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    configure(other, base_url)
    return other


async def test_a_session_works_in_its_cwds_project_and_is_listed_under_it(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "pwd > where.txt", "description": "x"}}]}]
    with ScriptedServer(script, done_text="Done.") as server:
        configure(project, server.base_url)
        other = other_project(tmp_path, server.base_url)
        async with acp_agent(STRATA_ACP, cwd=project, env=env) as agent:
            await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(other), mcp_servers=[])
            agent.permission_answers.append("once")
            answer = await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("where")])
            listed_there = await agent.conn.list_sessions(cwd=str(other))
            listed_here = await agent.conn.list_sessions(cwd=str(project))

    assert answer.stop_reason == "end_turn"
    assert (other / "where.txt").read_text().strip() == str(other)
    assert not (project / "where.txt").exists()
    assert [s.session_id for s in listed_there.sessions] == [session.session_id]
    assert [s.cwd for s in listed_there.sessions] == [str(other)]
    assert listed_here.sessions == []
