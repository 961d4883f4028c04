"""One client script against `opencode acp` (OpenCode 1.18.33) and `strata acp`: the two transcripts agree on
method names, update kinds, tool kinds, status orders, stop reasons and the fields of each result (ids,
times, titles, texts and chunking aside). Skipped where OpenCode is not installed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import text_block
from acp_client import FS_CLIENT, STRATA_ACP, acp_agent, configure, shape_of
from cli_harness import isolated_env
from opencode_oracle import OPENCODE, missing_reason, opencode_env

from strata_providers.testing import ScriptedServer

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.opencode_live]


async def run_script(command: Sequence[str], project: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Initialize, a new session, a text turn, a read, an allowed write, a rejected command: what was said."""
    notes, new = str(project / "notes.txt"), str(project / "new.txt")
    script: list[dict[str, Any]] = [
        {"text": "Hello there."},
        {"tool_calls": [{"name": "read", "arguments": {"filePath": notes}}]},
        {"text": "Two lines."},
        {"tool_calls": [{"name": "write", "arguments": {"filePath": new, "content": "fresh\n"}}]},
        {"text": "Wrote it."},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi", "description": "Say hi"}}]},
    ]
    turns: list[dict[str, Any]] = []
    with ScriptedServer(script) as server:
        configure(project, server.base_url)
        async with acp_agent(command, cwd=project, env=env) as agent:
            init = await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
            session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
            opened = list(agent.transcript)
            for text, answer in [("say hello", None), ("read", None), ("write", "once"), ("echo", "reject")]:
                agent.clear()
                if answer is not None:
                    agent.permission_answers.append(answer)  # type: ignore[arg-type]
                stop = await agent.conn.prompt(session_id=session.session_id, prompt=[text_block(text)])
                turns.append(
                    {
                        "stop": stop.stop_reason,
                        "kinds": agent.update_kinds(),
                        "tools": agent.tool_statuses(),
                        "methods": methods(agent.transcript),
                    }
                )
    results = [message for _, message in opened if "result" in message]
    return {
        "initialize": shape_of(init.model_dump(by_alias=True, exclude_none=True)["agentCapabilities"]),
        "new": sorted(results[1]["result"]),
        "config_ids": [option["id"] for option in results[1]["result"]["configOptions"]],
        "turns": turns,
        "writes": [path for path, _ in agent.client.writes],
    }


def methods(transcript: Sequence[tuple[str, dict[str, Any]]]) -> list[str]:
    """The requests both ways, in order (the updates are compared by kind)."""
    return [
        f"{direction} {message['method']}"
        for direction, message in transcript
        if "method" in message and message["method"] != "session/update"
    ]


@pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason()))
async def test_opencode_acp_and_strata_acp_agree_on_the_transcript(tmp_path: Path) -> None:
    said = {}
    for name, command, env_of in [
        ("opencode", [str(OPENCODE), "acp"], lambda root: opencode_env(root / "home", root / "data")),
        ("strata", STRATA_ACP, None),
    ]:
        root = tmp_path / name
        project = root / "work"
        project.mkdir(parents=True)
        (project / "notes.txt").write_text("alpha\nbeta\n")
        await anyio.run_process(["git", "init", "-q", str(project)])
        env = env_of(root) if env_of else isolated_env(root)
        said[name] = await run_script(command, project, env)
        said[name]["writes"] = [Path(path).name for path in said[name]["writes"]]

    strata, opencode = said["strata"], said["opencode"]
    for number, (ours, theirs) in enumerate(zip(strata.pop("turns"), opencode.pop("turns"), strict=True)):
        assert (number, ours) == (number, theirs)
    assert strata == opencode
