"""Without the MCP SDK (strata-core's `mcp` extra), a config's MCP servers fail as a server that cannot start
does: reported once with the extra named, no tools offered, nothing spawned, and the turn goes on.

The workspace has the SDK; `sys.modules["mcp"] = None` makes it unimportable, as in an install without the
extra (the connection imports the SDK when a server starts, so nothing imported earlier is in the way).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted, texts

from strata_core.bus import Bus, McpServerFailed
from strata_core.mcp import McpStatus

MISSING = "the MCP server 'spy' needs the MCP SDK (mcp): pip install 'strata-core[mcp]'"


@pytest.mark.anyio
async def test_servers_fail_naming_the_extra_and_nothing_is_spawned(
    monkeypatch: pytest.MonkeyPatch, project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    started = tmp_path / "started"
    config = {"mcp": {"spy": {"type": "local", "command": ["sh", "-c", f"touch {started}; sleep 30"]}}}
    script: Script = [{"text": "Hi."}]
    async with scripted(script) as server, engine(project, env, server, extra_config=config) as runtime:
        session = await runtime.sessions.create()
        async with runtime.bus.subscribe() as events:
            answer = await runtime.loop.prompt(ask(session.id, "hello"))
            failures = [(e.server, e.error) for e in Bus.waiting(events) if isinstance(e, McpServerFailed)]
        assert runtime.mcp is not None
        statuses = await runtime.mcp.started()
    assert texts(answer) == ["Hi."]
    assert failures == [("spy", MISSING)]
    assert statuses["spy"] == McpStatus("failed", MISSING)
    offered = [tool["function"]["name"] for tool in server.main_requests[0].body.get("tools", [])]
    assert "read" in offered and not [name for name in offered if name.startswith("spy")]
    assert not started.exists()


def test_importing_the_mcp_package_does_not_import_the_sdk() -> None:
    code = "import sys, strata_core.mcp, strata_core.mcp.servers; print(sorted(m for m in sys.modules if m == 'mcp'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
