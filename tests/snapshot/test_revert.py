"""Every kind of change a turn makes, seen in its diffs and taken back: revert, unrevert, the next prompt."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, provider_config, scripted, stored

from strata_core.message import PatchPart, StepFinishPart, StepStartPart
from strata_core.session.revert import RevertConflictError


def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "edited.txt").write_text("alpha\nbeta\n")
    (work / "patched.txt").write_text("red\ngreen\n")
    (work / "sedded.txt").write_text("cat\ndog\n")
    (work / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (work / "tool.sh").chmod(0o755)
    return work


def every_kind_of_change(work: Path) -> Script:
    """Edit, write and a shell command (the mock model is offered edit and write; GPT-5 ids get apply_patch)."""
    return [
        {
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {"filePath": str(work / "edited.txt"), "oldString": "beta", "newString": "BETA"},
                }
            ]
        },
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(work / "written.txt"), "content": "new\n"}}]},
        {
            "tool_calls": [
                {
                    "name": "bash",
                    "arguments": {
                        "command": "sed -i s/dog/wolf/ sedded.txt && echo out > redirected.txt && chmod -x tool.sh",
                        "description": "change files",
                    },
                }
            ]
        },
        {"text": "All changed."},
    ]


def files(work: Path) -> dict[str, bytes]:
    """The project's files and their bytes (the harness's own strata.json aside)."""
    return {path.name: path.read_bytes() for path in work.iterdir() if path.is_file() and path.name != "strata.json"}


def patched_files(history: list[object], work: Path) -> list[list[str]]:
    return [
        sorted(path.removeprefix(f"{work}/") for path in part.files)
        for message in history
        for part in getattr(message, "parts", [])
        if isinstance(part, PatchPart)
    ]


@pytest.mark.anyio
async def test_each_tools_changes_are_a_patch_part_and_a_diff(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    async with scripted(every_kind_of_change(work)) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change everything"))
        history = await stored(rt, session.id)
        diffs = await rt.sessions.diff(session.id, history[0].info.id)
        whole = await rt.sessions.diff(session.id)
    assert patched_files(list(history), work) == [
        ["edited.txt"],
        ["written.txt"],
        ["redirected.txt", "sedded.txt", "tool.sh"],
    ]
    assert [(d.file, d.status, d.additions, d.deletions) for d in diffs] == [
        ("edited.txt", "modified", 1, 1),
        ("redirected.txt", "added", 1, 0),
        ("sedded.txt", "modified", 1, 1),
        ("tool.sh", "modified", 0, 0),
        ("written.txt", "added", 1, 0),
    ]
    assert "-beta\n+BETA\n" in diffs[0].patch
    assert whole == diffs


@pytest.mark.anyio
async def test_an_apply_patch_over_two_files_is_one_patch_part(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    text = (
        "*** Begin Patch\n*** Update File: patched.txt\n@@\n red\n-green\n+blue\n"
        "*** Add File: added.txt\n+added\n*** End Patch"
    )
    script: Script = [{"tool_calls": [{"name": "apply_patch", "arguments": {"patchText": text}}]}, {"text": "Ok."}]
    async with scripted(script) as server:
        config = provider_config(server)
        config["provider"]["mock"]["models"] = {"gpt-5-mock": {"name": "GPT-5 mock", "tool_call": True}}
        config["model"] = "mock/gpt-5-mock"
        async with engine(work, env, server, mode="auto", extra_config=config) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(ask(session.id, "patch"))
            history = await stored(rt, session.id)
            diffs = await rt.sessions.diff(session.id, history[0].info.id)
    assert patched_files(list(history), work) == [["added.txt", "patched.txt"]]
    assert [(d.file, d.status) for d in diffs] == [("added.txt", "added"), ("patched.txt", "modified")]
    assert "-green\n+blue\n" in diffs[1].patch


@pytest.mark.anyio
async def test_revert_unrevert_and_the_next_prompt(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    originals = files(work)
    script = [*every_kind_of_change(work), {"text": "Fresh start."}]
    async with scripted(script) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change everything"))
        changed = files(work)
        user_id = (await stored(rt, session.id))[0].info.id

        reverted = await rt.sessions.revert(session.id, user_id)
        assert reverted.revert is not None and reverted.revert["messageID"] == user_id
        assert reverted.revert["snapshot"] and "+BETA" not in reverted.revert["diff"]
        assert files(work) == originals
        assert os.access(work / "tool.sh", os.X_OK)

        restored = await rt.sessions.unrevert(session.id)
        assert restored.revert is None
        assert files(work) == changed
        assert not os.access(work / "tool.sh", os.X_OK)

        await rt.sessions.revert(session.id, user_id)
        await rt.loop.prompt(ask(session.id, "start over"))
        history = await stored(rt, session.id)
        after = await rt.sessions.get(session.id)
    assert after.revert is None
    assert [m.info.role for m in history] == ["user", "assistant"]
    last_request = server.main_requests[-1].body
    assert "change everything" not in str(last_request["messages"])
    assert (work / "edited.txt").read_text() == "alpha\nbeta\n"


@pytest.mark.anyio
async def test_a_change_made_outside_the_agent_blocks_the_revert(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    async with scripted(every_kind_of_change(work)) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "change everything"))
        user_id = (await stored(rt, session.id))[0].info.id
        (work / "edited.txt").write_text("my own edit\n")
        with pytest.raises(RevertConflictError) as refused:
            await rt.sessions.revert(session.id, user_id)
        assert refused.value.files == (str(work / "edited.txt"),)
        assert "edited.txt" in str(refused.value) and "force the revert to lose them" in str(refused.value)
        assert (work / "written.txt").exists(), "a refused revert changes nothing"
        assert (await rt.sessions.get(session.id)).revert is None
        await rt.sessions.revert(session.id, user_id, force=True)
    assert (work / "edited.txt").read_text() == "alpha\nbeta\n"
    assert not (work / "written.txt").exists()


@pytest.mark.anyio
async def test_reverting_a_later_turn_keeps_the_earlier_ones(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    script: Script = [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(work / "one.txt"), "content": "1\n"}}]},
        {"text": "First."},
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(work / "two.txt"), "content": "2\n"}}]},
        {"text": "Second."},
    ]
    async with scripted(script) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "first"))
        await rt.loop.prompt(ask(session.id, "second"))
        history = await stored(rt, session.id)
        second_user = next(m.info.id for m in history if m.info.role == "user" and m.info.id != history[0].info.id)
        reverted = await rt.sessions.revert(session.id, second_user)
    assert (work / "one.txt").exists() and not (work / "two.txt").exists()
    assert reverted.summary == {"additions": 1, "deletions": 0, "files": 1}


@pytest.mark.anyio
async def test_snapshot_false_records_none(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    script: Script = [
        {"tool_calls": [{"name": "write", "arguments": {"filePath": str(work / "one.txt"), "content": "1\n"}}]},
        {"text": "Done."},
    ]
    off = {"snapshot": False}
    async with scripted(script) as server, engine(work, env, server, mode="auto", extra_config=off) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "write"))
        history = await stored(rt, session.id)
    parts = [part for message in history for part in message.parts]
    assert [p.snapshot for p in parts if isinstance(p, StepStartPart | StepFinishPart)] == [None] * 4
    assert not any(isinstance(part, PatchPart) for part in parts)
    assert not (Path(env["HOME"]) / ".local" / "share" / "strata" / "snapshot").exists()


@pytest.mark.anyio
async def test_a_secret_file_stays_out_of_snapshots_and_diffs(tmp_path: Path, env: dict[str, str]) -> None:
    work = project(tmp_path)
    command = "echo API_TOKEN=tok-secret-42 > .env && echo plain > plain.txt"
    script: Script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command, "description": "write"}}]},
        {"text": "Done."},
    ]
    async with scripted(script) as server, engine(work, env, server, mode="auto") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(ask(session.id, "write"))
        history = await stored(rt, session.id)
        diffs = await rt.sessions.diff(session.id, history[0].info.id)
    assert patched_files(list(history), work) == [["plain.txt"]]
    assert [d.file for d in diffs] == ["plain.txt"]
    assert "tok-secret-42" not in str(history[0].info)  # the user message and its summary.diffs
