"""`strata acp` driven as a subprocess by the official TypeScript client (`@agentclientprotocol/sdk`, installed
by .ci/run into the oracle cache), and the same script against `opencode acp` where OpenCode is installed:
the two agree on method names, update kinds, tool kinds, status orders and stop reasons.

`sdk/scenarios.mjs` runs initialize, session/new, a text turn, a read, a write allowed once (handed to
`fs/write_text_file`), a command rejected, a cancel during `sleep 30`, set_mode plan and a turn in it, then
session/load in a second agent process and a turn there; it asserts what both agents must do and writes
what each scenario said to a summary file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from acp_client import STRATA_ACP, configure
from cli_harness import isolated_env
from opencode_oracle import OPENCODE, ORACLE_CACHE, opencode_env

from strata_providers.testing import ScriptedServer

HERE = Path(__file__).parent
SCENARIOS = HERE / "sdk" / "scenarios.mjs"
SDK_VERSION = "2.4.0"
SDK_DIR = ORACLE_CACHE / "acp-sdk"
SCRIPT_TIMEOUT = 240


def sdk_missing() -> str | None:
    """Why the TypeScript client cannot run here, or None when it can."""
    if shutil.which("node") is None:
        return "node is not installed"
    package = SDK_DIR / "node_modules/@agentclientprotocol/sdk/package.json"
    if not package.is_file():
        return f"@agentclientprotocol/sdk@{SDK_VERSION} is not installed in {SDK_DIR} (.ci/run installs it with npm)"
    if json.loads(package.read_text(encoding="utf-8")).get("version") != SDK_VERSION:
        return f"{package} is not version {SDK_VERSION}"
    return None


pytestmark = pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")


def model_script(project: Path) -> list[dict[str, Any]]:
    """The model's side of the scenarios, in the order both agents ask."""
    notes, new = str(project / "notes.txt"), str(project / "new.txt")
    return [
        {"text": "Hello there."},
        {"tool_calls": [{"name": "read", "arguments": {"filePath": notes}}]},
        {"text": "Two lines."},
        {"tool_calls": [{"name": "write", "arguments": {"filePath": new, "content": "fresh\n"}}]},
        {"text": "Wrote it."},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "touch ran", "description": "Touch"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "Wait"}}]},
        {"text": "Planned."},
        {"text": "Still here."},
    ]


def git_project(root: Path) -> Path:
    project = root / "work"
    project.mkdir(parents=True)
    (project / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def run_scenarios(
    command: Sequence[str], project: Path, env: Mapping[str, str], summary: Path
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """The script against the agent `command` in `project`; its result and the model requests it caused."""
    node = shutil.which("node")
    assert node is not None
    with ScriptedServer(model_script(project)) as server:
        configure(project, server.base_url)
        done = subprocess.run(
            [node, str(SCENARIOS), *command],
            cwd=project,
            env={
                **env,
                "STRATA_ACP_SDK_DIR": str(SDK_DIR),
                "ACP_SUMMARY": str(summary),
                "ACP_TRANSCRIPT": str(summary.with_name("transcript.json")),
            },
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=SCRIPT_TIMEOUT,
            check=False,
        )
        bodies = [request.body for request in server.main_requests]
    return done, bodies


@attrs.frozen
class ScenarioRun:
    done: subprocess.CompletedProcess[str]
    bodies: list[dict[str, Any]]
    """The model requests the run caused."""
    summary: Path
    """What each scenario said (`scenarios.mjs` writes it when it gets that far)."""

    def said(self) -> dict[str, Any]:
        said: dict[str, Any] = json.loads(self.summary.read_text(encoding="utf-8"))
        return said


def scenario_run(command: Sequence[str], root: Path, env: Mapping[str, str]) -> ScenarioRun:
    """The scenarios against the agent `command` in a fresh git project under `root`."""
    summary = root / "summary.json"
    done, bodies = run_scenarios(command, git_project(root), {**env, "PATH": env.get("PATH", os.defpath)}, summary)
    return ScenarioRun(done, bodies, summary)


@pytest.fixture(scope="module")
def strata_run(tmp_path_factory: pytest.TempPathFactory) -> ScenarioRun:
    """`strata acp` through the scenarios, once for the module: both tests look at the same run (it costs
    seconds of node and Python start-ups)."""
    root = tmp_path_factory.mktemp("strata-acp")
    return scenario_run(STRATA_ACP, root, isolated_env(root))


def test_the_typescript_client_drives_strata_acp_through_the_scenarios(strata_run: ScenarioRun) -> None:
    done, bodies = strata_run.done, strata_run.bodies
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip().startswith("acp-scenarios: ok")
    said = strata_run.said()
    assert said["cancel"]["stop"] == "cancelled"
    assert said["cancel"]["tools"][-1] == ["tool_call_update", None, "completed"]  # with "User aborted the command"
    assert said["reject"]["tools"][-1] == ["tool_call_update", "execute", "failed"]
    plan_request = next(body for body in bodies if "make a plan" in json.dumps(body["messages"][-1]))
    assert "Plan mode is active" in json.dumps(plan_request["messages"])
    assert len(bodies) == len(model_script(strata_run.summary.parent))


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
def test_the_same_script_passes_against_opencode_acp_and_both_say_the_same(
    tmp_path: Path, strata_run: ScenarioRun
) -> None:
    root = tmp_path / "opencode"
    ran = {"opencode": scenario_run([str(OPENCODE), "acp"], root, opencode_env(root / "home", root / "data"))}
    ran["strata"] = strata_run
    said: dict[str, dict[str, Any]] = {}
    for name, run in ran.items():
        assert run.done.returncode == 0, f"{name}: {run.done.stderr[-4000:]}{run.done.stdout}"
        said[name] = run.said()

    strata, opencode = said["strata"], said["opencode"]
    # A cancelled command ends `completed` with "User aborted the command" in both (OpenCode's shell tool, and
    # Strata's bash through `end_on_abort`), and `session/load` replays that end as the history's last call.
    for scenario in ("cancel", "load"):
        assert opencode[scenario]["tools"][-1] == ["tool_call_update", None, "completed"]
    assert strata.keys() == opencode.keys()
    for scenario in strata:
        assert (scenario, strata[scenario]) == (scenario, opencode[scenario])
