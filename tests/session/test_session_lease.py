"""The one-writer lease: busy elsewhere fails at once or waits (saying so once), re-entrant in a process."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest
from session_records import assistant_message

from strata_core.engine.session_writer import INTERRUPTED_ANSWER, settle_interrupted_answer, settle_interrupted_calls
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    MessageError,
    PartTime,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
    ToolStateRunning,
)
from strata_core.session.lease import FileLeases, SessionBusyError
from strata_core.session.memory_store import MemorySessionStore
from strata_core.session.postgres_store import PostgresSessionStore
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore

pytestmark = pytest.mark.anyio


async def test_a_held_lease_is_busy_for_another_holder_and_waiting_says_so_once(tmp_path: Path) -> None:
    # Two FileLeases on one directory lock through different descriptors, as two processes would.
    mine, theirs = FileLeases(tmp_path), FileLeases(tmp_path)
    told: list[str] = []
    acquired = anyio.Event()

    async def wait_for_it() -> None:
        async with theirs.hold("ses_1", wait=True, on_wait=lambda: told.append("waiting")) as first:
            assert first
            acquired.set()

    async with anyio.create_task_group() as group:
        async with mine.hold("ses_1"):
            with pytest.raises(SessionBusyError, match="session is busy: ses_1"):
                async with theirs.hold("ses_1"):
                    pass
            group.start_soon(wait_for_it)
            await anyio.sleep(0.3)
            assert told == ["waiting"] and not acquired.is_set()
            async with theirs.hold("ses_2"):  # another session is not busy
                pass
        with anyio.fail_after(10):
            await acquired.wait()
    assert told == ["waiting"]


async def test_a_lease_is_reentrant_within_a_process(tmp_path: Path) -> None:
    leases = FileLeases(tmp_path)
    async with leases.hold("ses_1") as outer, leases.hold("ses_1") as inner:
        assert outer and not inner
    async with leases.hold("ses_1") as again:
        assert again  # released when the last holder left


async def test_the_memory_store_lease_is_reentrant() -> None:
    async with MemorySessionStore.open() as store, store.lease("ses_1") as outer, store.lease("ses_1") as inner:
        assert outer and not inner


def tool_part(part_id: str, session_id: str, state: ToolStateRunning | ToolStateCompleted) -> ToolPart:
    return ToolPart(id=part_id, session_id=session_id, message_id="msg_1", call_id=part_id, tool="bash", state=state)


def opened_store(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AbstractAsyncContextManager[SessionStore]:
    """A store of `kind` (sqlite, memory or postgres), opened by the block."""
    if kind == "sqlite":
        return SqliteSessionStore.open(tmp_path / "s.db")
    if kind == "memory":
        return MemorySessionStore.open()
    return PostgresSessionStore.open(request.getfixturevalue("postgres_url"))


@pytest.mark.parametrize("kind", ["sqlite", "memory", "postgres"])
async def test_unfinished_tool_parts_are_found_and_settled_without_loading_the_session(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    running = ToolStateRunning(input={"command": "sleep 60"}, time=PartTime(1))
    done = ToolStateCompleted(input={}, output="ok", title="t", metadata={}, time=ToolCompletedTime(start=1, end=2))
    async with opened_store(kind, tmp_path, request) as store:
        for part in (tool_part("prt_1", "ses_1", running), tool_part("prt_2", "ses_1", done)):
            await store.put_part(part)
        await store.put_part(tool_part("prt_3", "ses_2", running))
        assert [p.id for p in await store.unfinished_tool_parts("ses_1")] == ["prt_1"]
        assert await settle_interrupted_calls(store, "ses_1", 5) == 1
        assert await store.unfinished_tool_parts("ses_1") == []
        assert [p.id for p in await store.unfinished_tool_parts("ses_2")] == ["prt_3"]


@pytest.mark.parametrize("kind", ["sqlite", "memory", "postgres"])
async def test_an_answer_a_crashed_writer_left_open_is_ended_as_aborted_and_a_finished_one_is_left(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    async with opened_store(kind, tmp_path, request) as store:
        open_answer = assistant_message("ses_1", "msg_user")
        await store.put_message(open_answer)
        finished = assistant_message("ses_2", "msg_user")
        finished.time.completed = 3
        await store.put_message(finished)

        assert await settle_interrupted_answer(store, "ses_1", 7)
        assert not await settle_interrupted_answer(store, "ses_1", 9)  # settled once
        assert not await settle_interrupted_answer(store, "ses_2", 9)

        ended = await store.newest_message("ses_1")
        assert isinstance(ended, AssistantMessage) and ended.time.completed == 7
        assert ended.error == MessageError(ABORTED_ERROR, INTERRUPTED_ANSWER)
        assert await store.newest_message("ses_2") == finished


def lease_files(directory: Path) -> list[Path]:
    return list(directory.glob("*.lock"))


async def test_the_last_holder_removes_the_lease_file(tmp_path: Path) -> None:
    leases = FileLeases(tmp_path)
    async with leases.hold("ses_1"), leases.hold("ses_1"):
        assert len(lease_files(tmp_path)) == 1
    assert lease_files(tmp_path) == []


HOLDER = """
import sys, anyio
from pathlib import Path
from strata_core.session.lease import FileLeases

async def main(directory: Path, counter: Path, rounds: int) -> None:
    leases = FileLeases(directory)
    for _ in range(rounds):
        async with leases.hold("ses_1", wait=True):
            value = int(counter.read_text() or "0")  # a read-modify-write only one holder may be inside
            counter.write_text(str(value + 1))

anyio.run(main, Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
"""


def test_removing_lease_files_keeps_one_holder_at_a_time_across_processes(tmp_path: Path) -> None:
    """Holders in two processes take and give back one session's lease many times, each removing the file as
    it lets go: were a holder ever to lock a file already removed, both would be inside at once and counts
    would be lost."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    rounds = 200
    command = [sys.executable, "-c", HOLDER, str(tmp_path / "leases"), str(counter), str(rounds)]
    holders = [subprocess.Popen(command) for _ in range(4)]
    assert [holder.wait(timeout=120) for holder in holders] == [0, 0, 0, 0]
    assert counter.read_text() == str(4 * rounds)
    assert lease_files(tmp_path / "leases") == []


async def test_a_lease_file_removed_between_open_and_lock_is_not_taken_for_the_lease(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving the stress test above can only hope for, made to happen: right after this holder opens
    the file, its last holder removes it and a third holder creates and locks a fresh one. Locking the removed
    file succeeds, but it is no longer the lease: this holder must find the session busy."""
    real_open = os.open
    third: list[int] = []

    def open_then_replace(path: Any, flags: int, mode: int = 0o777) -> int:
        fd = real_open(path, flags, mode)
        if str(path).endswith(".lock") and not third:
            Path(path).unlink()
            third.append(real_open(path, os.O_RDWR | os.O_CREAT, 0o600))
            fcntl.flock(third[0], fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd

    monkeypatch.setattr(os, "open", open_then_replace)
    try:
        with pytest.raises(SessionBusyError):
            async with FileLeases(tmp_path).hold("ses_1"):
                pass
    finally:
        os.close(third[0])
