"""Runs of `strata` on one session from outside: a run in the background, a model answer held until the test
lets it go, and what the session holds (for the one-writer and busy-session tests)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cli_harness import RUN_TIMEOUT, STRATA, Cli, mock_provider_config, write_config
from hostile_server import Behaviour, HostileServer, Wire, sse


@contextmanager
def background_run(cli: Cli, *args: str) -> Iterator[subprocess.Popen[str]]:
    """`strata <args>` started in its own process group, killed with it if still running at the end."""
    process = subprocess.Popen(
        [str(STRATA), *args],
        cwd=cli.project,
        env=dict(cli.env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=RUN_TIMEOUT)


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


def only_session(cli: Cli) -> str:
    sessions = json.loads(cli("session", "list", "--json").stdout)
    assert len(sessions) == 1
    session_id: str = sessions[0]["id"]
    return session_id


def user_texts(cli: Cli, session_id: str) -> list[str]:
    document = json.loads(cli("session", "show", session_id, "--json").stdout)
    return [
        part["text"]
        for message in document["messages"]
        if message["info"]["role"] == "user"
        for part in message["parts"]
        if part["type"] == "text"
    ]


def held_answers(gate: threading.Event) -> Behaviour:
    """Answers every model call with one text; the second call waits for `gate` before it finishes."""
    calls = 0

    def behaviour(wire: Wire) -> Iterator[bytes | None]:
        nonlocal calls
        calls += 1
        yield sse({"choices": [{"index": 0, "delta": {"content": f"Answer {calls}."}}]})
        if calls == 2:
            gate.wait(RUN_TIMEOUT)
        yield sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        yield sse("[DONE]")

    return behaviour


@contextmanager
def second_run_held(cli: Cli, server: HostileServer) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A first run, then `run -s` on its session in the background, held mid-answer (`server` plays
    `held_answers`): the session id and that run, once its request has arrived."""
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "first").returncode == 0
    session_id = only_session(cli)
    with background_run(cli, "run", "-s", session_id, "slow one") as slow:
        wait_until(lambda: server.model_requests == 2, "the slow run's request arrived")
        yield session_id, slow
