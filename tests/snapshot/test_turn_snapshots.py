"""A turn's snapshots, patch parts and diffs, as OpenCode 1.18.33 records them for the same scripted session.

`tests/oracle_fixtures/snapshot-turn/` holds the fixture, the script and `opencode export` of the session
`opencode run` made of it (`../shared/oracle/capture.sh opencode fixture OUT script.json -- "change the files"`,
then `opencode export ID`): an edit of f.txt, then one bash command creating g.txt, deleting d.txt and
rewriting n.txt, then a text answer.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from attrs import define, field
from cli_harness import Cli, isolated_env
from engine_harness import Script, ask, engine, scripted, stored

from strata_core.message import PatchPart, StepFinishPart, StepStartPart
from strata_core.snapshot.git_snapshot import GitSnapshot, snapshot_dir
from strata_providers.testing import ScriptedServer

RECORDING = Path(__file__).parents[1] / "oracle_fixtures" / "snapshot-turn"


def opencode_export() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDING / "export.json").read_text())
    return data


def recorded_project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(RECORDING / "fixture", work)
    (work / "opencode.json").unlink()  # the harness writes its own provider config
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


def recorded_script(work: Path) -> Script:
    script: Script = json.loads((RECORDING / "script.json").read_text().replace("__WORK__", str(work)))
    return script


def part_shapes(messages: list[dict[str, Any]], work: str) -> list[list[dict[str, Any]]]:
    """Per message, each part's type; for patch parts their files relative to the work dir, for tool parts the
    tool, its status, input and output (paths relative to the work dir), for text parts the text."""
    shapes = []
    for message in messages:
        parts = []
        for part in message["parts"]:
            shape: dict[str, Any] = {"type": part["type"]}
            if part["type"] == "patch":
                shape["files"] = [file.removeprefix(work + "/") for file in part["files"]]
            if part["type"] in ("step-start", "step-finish"):
                shape["snapshot"] = bool(part.get("snapshot"))
            if part["type"] == "step-finish":
                shape["reason"] = part.get("reason")
            if part["type"] == "tool":
                state = json.loads(json.dumps(part["state"]).replace(work + "/", ""))
                shape.update(tool=part["tool"], status=state["status"], input=state["input"], output=state["output"])
            if part["type"] == "text":
                shape["text"] = part["text"].removeprefix('"').removesuffix('"')  # `opencode run` quotes its argument
            parts.append(shape)
        shapes.append(parts)
    return shapes


@pytest.mark.anyio
async def test_a_turn_records_what_opencode_records(tmp_path: Path, env: dict[str, str]) -> None:
    work = recorded_project(tmp_path)
    async with scripted(recorded_script(work)) as server, engine(work, env, server, mode="auto") as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "change the files"))
        exported = await runtime.sessions.export(session.id)
        history = await stored(runtime, session.id)
        info = await runtime.sessions.get(session.id)
    expected = opencode_export()
    recorded_work = (RECORDING / "workdir.txt").read_text().strip()
    assert part_shapes(exported["messages"], str(work)) == part_shapes(expected["messages"], recorded_work)
    assert exported["messages"][0]["info"]["summary"] == expected["messages"][0]["info"]["summary"]
    # OpenCode's export leaves the session totals at zero; Strata stores the real ones.
    assert info.summary == {"additions": 3, "deletions": 3, "files": 4}
    starts = [p.snapshot for m in history for p in m.parts if isinstance(p, StepStartPart)]
    finishes = [p.snapshot for m in history for p in m.parts if isinstance(p, StepFinishPart)]
    assert starts[1:] == finishes[:-1], "each step starts from the snapshot the previous one finished with"
    patches = [p for m in history for p in m.parts if isinstance(p, PatchPart)]
    assert [p.hash for p in patches] == starts[:2]
    assert (work / "g.txt").read_text() == "new\n" and not (work / "d.txt").exists()


@define
class CountedSnapshot(GitSnapshot):
    """Git snapshots that count how often the worktree is scanned."""

    scans: int = field(default=0, init=False)

    async def track(self) -> str | None:
        self.scans += 1
        return await super().track()


@pytest.mark.anyio
async def test_a_turn_scans_the_worktree_at_its_start_and_after_each_step_that_ran_tools(
    tmp_path: Path, env: dict[str, str]
) -> None:
    work = recorded_project(tmp_path)
    snapshots = CountedSnapshot(gitdir=snapshot_dir(tmp_path / "data", "p", work), worktree=work, env=env)
    async with (
        scripted(recorded_script(work)) as server,
        engine(work, env, server, mode="auto", snapshots=snapshots) as runtime,
    ):
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "change the files"))
        history = await stored(runtime, session.id)
    starts = [p.snapshot for m in history for p in m.parts if isinstance(p, StepStartPart)]
    finishes = [p.snapshot for m in history for p in m.parts if isinstance(p, StepFinishPart)]
    assert len(starts) == 3 and starts[1:] == finishes[:-1]
    # The first step's start, then the finish of each step that ran a tool; the text step reuses its start.
    assert snapshots.scans == 3
    patches = [p for m in history for p in m.parts if isinstance(p, PatchPart)]
    assert [sorted(Path(f).name for f in p.files) for p in patches] == [["f.txt"], ["d.txt", "g.txt", "n.txt"]]


def test_strata_run_then_export_agrees_with_opencodes_export(tmp_path: Path) -> None:
    """The whole CLI path: `strata run` on the fixture with the fixture's own config, then `strata export`."""
    work = tmp_path / "work"
    shutil.copytree(RECORDING / "fixture", work)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    cli = Cli(work, isolated_env(tmp_path), in_process=True)
    with ScriptedServer(recorded_script(work)) as server:
        config = work / "opencode.json"
        config.write_text(config.read_text().replace("__PORT__", str(server.port)))
        done = cli("run", "change the files")
        assert done.returncode == 0, done.stderr
    exported = cli("export")
    assert exported.returncode == 0, exported.stderr
    ours = json.loads(exported.stdout[exported.stdout.index("{") :])
    expected = opencode_export()
    recorded_work = (RECORDING / "workdir.txt").read_text().strip()
    assert part_shapes(ours["messages"], str(work)) == part_shapes(expected["messages"], recorded_work)
    assert ours["messages"][0]["info"]["summary"] == expected["messages"][0]["info"]["summary"]
