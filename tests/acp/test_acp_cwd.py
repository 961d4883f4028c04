"""A session's `cwd` in `strata acp`: ACP says it is the session's working directory, an absolute path."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import RequestError
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
