"""A full disk under the data directory is one clear error, not a bug: `strata run` prints what is full and what to
free (exit 1, no traceback), and the sessions stored before stay readable. The data directory is a real, small
tmpfs (mounting it needs root)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli, isolated_env, mock_provider_config, write_config
from small_disk import mounted_tmpfs

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
FULL = "could not be written: the filesystem that holds it is full"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs for the data directory."""
    with mounted_tmpfs(tmp_path / "data", "2m") as mount:
        yield mount


@pytest.fixture
def cli_on_small_disk(tmp_path: Path, project: Path, small_disk: Path) -> Cli:
    return Cli(project, {**isolated_env(tmp_path), "STRATA_DATA_DIR": str(small_disk)}, in_process=True)


def _fill(disk: Path, *, leave: int = 0) -> Path:
    """Takes all the free space of `disk` but `leave` bytes, in one file (removed to free the space again)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        if leave:
            stats = os.statvfs(disk)
            out.write(b"x" * (stats.f_bavail * stats.f_frsize - leave))
            return filler
        try:
            while True:
                out.write(b"x" * 65536)
        except OSError:
            return filler  # ENOSPC: the disk is full


def _first_session(cli: Cli, server: ScriptedServer) -> str:
    write_config(cli.project, mock_provider_config(server.base_url))
    first = cli("run", "remember: milk")
    assert first.returncode == 0, first.stderr
    [session] = json.loads(cli("session", "list", "--json").stdout)
    session_id: str = session["id"]
    return session_id


def _assert_one_paragraph_exit_1(done: subprocess.CompletedProcess[str], disk: Path) -> None:
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.strip().splitlines()[-1:]
    assert line.startswith(f"Error: The session database {disk / 'strata.db'} {FULL}")
    assert "Free some space there" in line
    assert "Traceback" not in done.stderr and "This is a bug" not in done.stderr


def test_a_full_disk_before_the_run_is_a_clear_error_and_the_session_stays(
    cli_on_small_disk: Cli, small_disk: Path, scripted: Scripted
) -> None:
    cli = cli_on_small_disk
    session_id = _first_session(cli, scripted([{"text": "Noted: milk."}, {"text": "Still milk."}]))
    filler = _fill(small_disk)
    _assert_one_paragraph_exit_1(cli("run", "-c", "what did I say?"), small_disk)
    filler.unlink()
    shown = cli("session", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    assert "remember: milk" in shown.stdout and "Noted: milk." in shown.stdout
    again = cli("run", "-c", "what did I say?")
    assert again.returncode == 0 and "Still milk." in again.stdout, again.stderr


def test_a_disk_that_fills_during_the_answer_is_a_clear_error_and_nothing_is_half_written(
    cli_on_small_disk: Cli, small_disk: Path, scripted: Scripted
) -> None:
    cli = cli_on_small_disk
    long_answer = {"text": "y" * 3_000_000, "chunk_size": 3000, "delay": 0}
    session_id = _first_session(cli, scripted([{"text": "Noted: milk."}, long_answer]))
    filler = _fill(small_disk, leave=300_000)
    _assert_one_paragraph_exit_1(cli("run", "-c", "write a lot"), small_disk)
    filler.unlink()
    exported = cli("session", "export", session_id)
    assert exported.returncode == 0, exported.stderr
    messages = json.loads(exported.stdout)["messages"]
    texts = [part.get("text", "") for message in messages for part in message["parts"] if part["type"] == "text"]
    assert texts[:3] == ["remember: milk", "Noted: milk.", "write a lot"]
    # The write that hit the full disk was rolled back whole: what is stored of the answer is a state that was
    # committed before (a prefix of the streamed text, or nothing), and the database is sound.
    assert all(set(text) <= {"y"} for text in texts[3:])
    with closing(sqlite3.connect(small_disk / "strata.db")) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
