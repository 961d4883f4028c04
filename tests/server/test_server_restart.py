"""A server killed in the middle of a tool call leaves the call `running` in the store; the next server on
the same data directory marks it interrupted as it starts, before any client reads it, and leaves alone
a session that another live process is writing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
from cli_harness import RUN_TIMEOUT, STRATA, Cli
from process_probe import end_stranded_sandboxes
from server_harness import ServeFactory, wait_until

SLEEP = {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "Wait a while"}}]}
ALLOW_BASH = {"bash": "allow"}
WAIT = 30.0


def tool_states(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [part["state"] for message in messages for part in message["parts"] if part["type"] == "tool"]


def stored_tool_states(cli: Cli, session_id: str) -> list[dict[str, Any]]:
    """The session's tool states as `strata session show` reads them (a busy session is left as it is)."""
    shown = cli("session", "show", session_id, "--json")
    return tool_states(json.loads(shown.stdout)["messages"]) if shown.returncode == 0 else []


def test_a_call_cut_off_by_a_crash_reads_interrupted_right_after_the_restart(
    serve: ServeFactory, project: Path, env: dict[str, str]
) -> None:
    crashed = serve([SLEEP, SLEEP], permission=ALLOW_BASH)  # the second turn is the live run's below
    with httpx.Client(base_url=crashed.url, timeout=WAIT) as client:
        cut_off = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{cut_off}/prompt_async", json={"parts": [{"type": "text", "text": "wait"}]})

        def running() -> list[dict[str, Any]]:
            states = tool_states(client.get(f"/session/{cut_off}/message").json())
            return [state for state in states if state["status"] == "running"]

        wait_until(running, "the call to run")
    os.killpg(crashed.process.pid, signal.SIGKILL)
    crashed.process.wait(WAIT)

    cli = Cli(project, env)
    live = subprocess.Popen(
        [str(STRATA), "run", "wait too"],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:

        def other_sessions() -> list[str]:
            return [s["id"] for s in json.loads(cli("session", "list", "--json").stdout) if s["id"] != cut_off]

        (writing,) = wait_until(other_sessions, "the run's session")
        wait_until(lambda: [s for s in stored_tool_states(cli, writing) if s["status"] == "running"], "its call to run")

        restarted = serve([], permission=ALLOW_BASH)
        with httpx.Client(base_url=restarted.url, timeout=WAIT) as client:
            (settled,) = tool_states(client.get(f"/session/{cut_off}/message").json())
            (untouched,) = tool_states(client.get(f"/session/{writing}/message").json())
    finally:
        os.killpg(live.pid, signal.SIGKILL)
        live.wait(RUN_TIMEOUT)
        end_stranded_sandboxes(project.parent)  # the two kills' `sleep` calls (bubblewrap's race, see there)

    assert settled["status"] == "error"
    assert settled["error"] == "Tool execution aborted"
    assert settled["metadata"]["interrupted"] is True
    assert settled["input"] == SLEEP["tool_calls"][0]["arguments"]
    assert untouched["status"] == "running"
