"""One writer per session: a second run on a busy session fails at once, a crashed writer's calls settle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import RUN_TIMEOUT, STRATA, Cli, mock_provider_config, write_config
from hostile_server import HostileServer
from session_runs import background_run, held_answers, only_session, second_run_held, user_texts, wait_until

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_a_second_run_on_a_busy_session_fails_at_once_and_never_interleaves(cli: Cli) -> None:
    gate = threading.Event()
    with HostileServer(held_answers(gate)) as server, second_run_held(cli, server) as (session_id, slow):
        second = cli("run", "-s", session_id, "interloper")
        third = cli("run", "-c", "interloper")
        gate.set()
        out, err = slow.communicate(timeout=RUN_TIMEOUT)
    assert slow.returncode == 0, err
    assert "Answer 2." in out
    for busy in (second, third):
        assert busy.returncode == 1
        assert f"Error: session is busy: {session_id} has a turn running" in busy.stderr
    assert server.model_requests == 2 and "interloper" not in json.dumps(server.bodies)
    assert user_texts(cli, session_id) == ["first", "slow one"]


def test_ten_runs_on_ten_sessions_all_complete(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hi."}] * 10)
    write_config(cli.project, mock_provider_config(server.base_url))
    runs = [
        subprocess.Popen(
            [str(STRATA), "run", f"hello {n}"],
            cwd=cli.project,
            env=dict(cli.env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(10)
    ]
    results = [run.communicate(timeout=RUN_TIMEOUT * 2) for run in runs]
    assert [run.returncode for run in runs] == [0] * 10, [err for _, err in results]
    assert len(json.loads(cli("session", "list", "--json").stdout)) == 10


def test_a_killed_run_leaves_no_running_call_and_no_stale_lease(cli: Cli, scripted: Scripted) -> None:
    marker = cli.project / "started"
    bash = {"name": "bash", "arguments": {"command": f"touch {marker} && sleep 60", "description": "wait"}}
    server = scripted([{"tool_calls": [bash]}, {"text": "Continued."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    with background_run(cli, "run", "--auto", "wait a minute") as run:
        wait_until(marker.exists, "the tool call started")
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=RUN_TIMEOUT)
    session_id = only_session(cli)
    document = json.loads(cli("session", "show", session_id, "--json").stdout)
    tools = [p for m in document["messages"] for p in m["parts"] if p["type"] == "tool"]
    assert [t["state"]["status"] for t in tools] == ["error"]
    assert tools[0]["state"]["metadata"]["interrupted"] is True
    resumed = cli("run", "-c", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert "Continued." in resumed.stdout


def test_a_lease_held_by_a_dead_process_is_free(cli: Cli, tmp_path: Path, scripted: Scripted) -> None:
    server = scripted([{"text": "One."}, {"text": "Two."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "first").returncode == 0
    session_id = only_session(cli)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LEASE, str(Path(cli.env["XDG_DATA_HOME"]) / "strata" / "strata.db"), session_id],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert "session is busy" in cli("run", "-c", "while held").stderr
    finally:
        holder.kill()
        holder.wait()
    again = cli("run", "-c", "after")
    assert again.returncode == 0, again.stderr
    assert user_texts(cli, session_id) == ["first", "after"]


HOLD_LEASE = """
import sys, time, anyio
from pathlib import Path
from strata_core.session.lease import FileLeases

async def main() -> None:
    db = Path(sys.argv[1])
    async with FileLeases(db.with_name(db.name + "-leases")).hold(sys.argv[2]):
        print("held", flush=True)
        await anyio.sleep(60)

anyio.run(main)
"""
