"""A file whose name is not UTF-8 (`caf\\xe9.txt`, Latin-1 from an old archive): snapshots record and restore it
byte for byte, and what they hand out (patch parts, diffs) shows the byte as U+FFFD, as OpenCode shows it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted, stored

from strata_core.message import AssistantMessage, MessageWithParts, PatchPart
from strata_core.snapshot.git_snapshot import GitSnapshot, snapshot_dir

LATIN_1 = b"caf\xe9.txt"
SHOWN = "caf\ufffd.txt"


def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("hi\n")
    return work


def write_bytes(work: Path, name: bytes, data: bytes) -> None:
    (work / os.fsdecode(name)).write_bytes(data)  # the name's bytes as a lone surrogate, encoded back as they were


def read_bytes(work: Path, name: bytes) -> bytes | None:
    path = work / os.fsdecode(name)
    return path.read_bytes() if path.exists() else None


def bash(command: str) -> Script:
    return [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command, "description": "change files"}}]},
        {"text": "Done here."},
    ]


def patch_files(history: Sequence[MessageWithParts], work: Path) -> list[list[str]]:
    return [
        sorted(path.removeprefix(f"{work}/") for path in part.files)
        for message in history
        for part in message.parts
        if isinstance(part, PatchPart)
    ]


def answers(history: Sequence[MessageWithParts]) -> list[str]:
    """The assistant's words and errors: the turn ended with the model's answer, not an error."""
    out = []
    for message in history:
        if isinstance(message.info, AssistantMessage):
            out += [f"error: {message.info.error}"] if message.info.error else []
            out += [message.text] if message.text else []
    return out


@pytest.mark.anyio
async def test_a_turn_beside_a_latin_1_name_keeps_its_answer_and_reverts(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    write_bytes(work, LATIN_1, b"")
    script: Script = [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(work / "new.txt"), "content": "new\n"}}]},
        {"text": "Wrote it."},
    ]
    async with scripted(script) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "write a file"))
        history = await stored(rt, session.id)
        assert answers(history) == ["Wrote it."]
        assert patch_files(history, work) == [["new.txt"]]
        await rt.sessions.revert(session.id, history[0].info.id)
    assert not (work / "new.txt").exists()
    assert read_bytes(work, LATIN_1) == b""


@pytest.mark.anyio
async def test_a_bash_change_to_latin_1_names_is_shown_with_u_fffd_and_reverted_byte_for_byte(
    tmp_path: Path, env: dict[str, str]
) -> None:
    work = project(tmp_path)
    write_bytes(work, LATIN_1, b"before\n")
    script = bash("printf 'after\\n' > \"$(printf 'caf\\351.txt')\" && printf x > \"$(printf 'd\\351j\\340.txt')\"")
    async with scripted(script) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change it"))
        history = await stored(rt, session.id)
        user_id = history[0].info.id
        diffs = await rt.sessions.diff(session.id, user_id)
        assert answers(history) == ["Done here."]
        assert read_bytes(work, LATIN_1) == b"after\n"
        assert patch_files(history, work) == [[SHOWN, "d\ufffdj\ufffd.txt"]]
        assert [(d.file, d.status) for d in diffs] == [(SHOWN, "modified"), ("d\ufffdj\ufffd.txt", "added")]

        await rt.sessions.revert(session.id, user_id)
        assert read_bytes(work, LATIN_1) == b"before\n"
        assert read_bytes(work, b"d\xe9j\xe0.txt") is None

        await rt.sessions.unrevert(session.id)
    assert read_bytes(work, LATIN_1) == b"after\n"
    assert read_bytes(work, b"d\xe9j\xe0.txt") == b"x"


@pytest.mark.anyio
async def test_a_shown_name_stands_for_every_name_it_could_be(tmp_path: Path) -> None:
    """`caf\\xe9` and `caf\\xe8` both show as `caf\\ufffd`: a revert of that name puts back both, and the check for
    changes made outside the agent sees a change to either."""
    work = project(tmp_path)
    write_bytes(work, LATIN_1, b"e acute\n")
    write_bytes(work, b"caf\xe8.txt", b"e grave\n")
    snap = GitSnapshot(snapshot_dir(tmp_path / "data", "project", work), work, {"PATH": "/usr/bin:/bin"})
    before = await snap.track()
    write_bytes(work, LATIN_1, b"changed\n")
    (work / os.fsdecode(b"caf\xe8.txt")).unlink()
    after = await snap.track()
    assert before and after
    patch = await snap.patch(before, after)
    assert patch.files == (str(work / SHOWN),)
    assert await snap.differing(before, after, patch.files) == {str(work / SHOWN)}
    await snap.revert([patch])
    assert read_bytes(work, LATIN_1) == b"e acute\n"
    assert read_bytes(work, b"caf\xe8.txt") == b"e grave\n"
