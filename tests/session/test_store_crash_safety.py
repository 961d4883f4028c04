"""A process killed mid-write (SIGKILL, no cleanup) leaves a store that opens and parses completely."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from strata_core.serialization import message_from_json, part_from_json, session_from_json
from strata_core.session.sqlite_store import SqliteSessionStore

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

RUNS = 10

# The child streams a turn the way the processor does: a message, then parts that grow and change state,
# each put its own transaction, as fast as it can, until it is killed.
WRITER = r"""
import sys
from pathlib import Path

import anyio

from strata_core import message as m
from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.session_info import SessionInfo, SessionTime
from strata_core.session.sqlite_store import SqliteSessionStore


async def main(path: Path) -> None:
    ids = Ids(SystemClock())
    async with SqliteSessionStore.open(path) as store:
        session = SessionInfo(
            id=ids.new("ses"), project_id="p", directory="/", title="crash", version="t",
            time=SessionTime(created=1, updated=1),
        )
        await store.put_session(session)
        print("ready", flush=True)
        while True:
            reply = m.AssistantMessage(
                id=ids.new("msg"), session_id=session.id, parent_id="msg_user", time=m.MessageTime(created=1),
                model_id="x", provider_id="y", mode="build", agent="build", path=m.PathInfo(cwd="/", root="/"),
            )
            await store.put_message(reply)
            text = m.TextPart(id=ids.new("prt"), session_id=session.id, message_id=reply.id)
            for i in range(20):
                text.text += f"delta {i} " * 20
                await store.put_part(text)
            tool = m.ToolPart(
                id=ids.new("prt"), session_id=session.id, message_id=reply.id, call_id="c", tool="bash",
                state=m.ToolStatePending(),
            )
            await store.put_part(tool)
            tool.state = m.ToolStateCompleted(
                input={"command": "ls"}, output="x" * 5000, title="ls", metadata={},
                time=m.ToolCompletedTime(start=1, end=2),
            )
            await store.put_part(tool)
            async with store.batch():
                reply.finish = "tool-calls"
                await store.put_message(reply)
                await store.put_part(m.StepFinishPart(
                    id=ids.new("prt"), session_id=session.id, message_id=reply.id, reason="tool-calls"
                ))


anyio.run(main, Path(sys.argv[1]))
"""


def run_and_kill(path: Path, rng: random.Random) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "ready", child.stderr.read() if child.stderr else line
        time.sleep(rng.uniform(0.01, 0.25))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL


async def test_the_store_survives_repeated_sigkills_mid_write(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    rng = random.Random(20260528)
    for _ in range(RUNS):
        run_and_kill(path, rng)

    async with SqliteSessionStore.open(path) as store:
        sessions = await store.list_sessions()
        assert len(sessions) == RUNS
        written = 0
        for session in sessions:
            history = await store.messages(session.id)  # parses every message and part
            written += sum(len(h.parts) for h in history)
        assert written > 0

    # Every row parses, orphans included, and SQLite finds the file sound.
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for (data,) in conn.execute("SELECT data FROM session"):
            session_from_json(data)
        for (data,) in conn.execute("SELECT data FROM message"):
            message_from_json(data)
        for (data,) in conn.execute("SELECT data FROM part"):
            part_from_json(data)
