"""Ctrl-C (SIGINT) ends a `strata run` blocked on the model or on a tool, with exit 130, and keeps the session."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_harness import RUN_TIMEOUT, STRATA, Cli, mock_provider_config, write_config
from hostile_server import HostileServer, keepalive_only, silent_after_headers

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
EXIT_INTERRUPTED = 130
GRACE = 10.0
"""Far more than the second a person waits: the point is that SIGINT ends the run at all."""


def start(cli: Cli, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(STRATA), *args],
        cwd=cli.project,
        env=dict(cli.env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def interrupt_when(process: subprocess.Popen[str], ready: Callable[[], bool]) -> tuple[int, str]:
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not ready():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the run never reached the wait to interrupt"
            time.sleep(0.05)
        time.sleep(0.3)  # inside the wait, not at its door
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=GRACE)
        return process.returncode, err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@pytest.mark.parametrize("behaviour", [silent_after_headers, keepalive_only], ids=["silent", "pings"])
def test_ctrl_c_ends_a_run_waiting_for_the_model(cli: Cli, behaviour: Any) -> None:
    with HostileServer(behaviour) as server:
        write_config(cli.project, mock_provider_config(server.base_url))
        code, err = interrupt_when(start(cli, "run", "say hello"), lambda: server.model_requests == 1)
    assert code == EXIT_INTERRUPTED, err


def test_ctrl_c_ends_a_run_waiting_for_a_tool(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    marker = cli.project / "started"
    bash = {"name": "bash", "arguments": {"command": f"touch {marker} && sleep 60", "description": "wait"}}
    server = scripted([{"tool_calls": [bash]}])
    write_config(cli.project, mock_provider_config(server.base_url))
    code, err = interrupt_when(start(cli, "run", "--auto", "wait a minute"), marker.exists)
    assert code == EXIT_INTERRUPTED, err
    sessions = json.loads(cli("session", "list", "--json").stdout)
    document = json.loads(cli("session", "show", sessions[0]["id"], "--json").stdout)
    tools = [p for m in document["messages"] for p in m["parts"] if p["type"] == "tool"]
    # The command answered the interrupt as OpenCode's shell tool does: completed, with the abort noted.
    assert [t["state"]["status"] for t in tools] == ["completed"]
    assert "User aborted the command" in tools[0]["state"]["output"]
