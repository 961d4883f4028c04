"""`strata session diff|revert|unrevert` and `run --format json`'s snapshots, on a session made by a real run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
COMMAND = "echo TWO > notes.txt && echo new > made.txt"


def _changing_run(cli: Cli, scripted: Scripted, *args: str) -> str:
    (cli.project / "notes.txt").write_text("one\n")
    bash = {"tool_calls": [{"name": "bash", "arguments": {"command": COMMAND, "description": "change"}}]}
    server = scripted([bash, {"text": "Changed."}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "permission": {"bash": "allow"}})
    run = cli("run", *args, "change the notes")
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_diff_revert_and_unrevert_from_the_command_line(cli: Cli, scripted: Scripted) -> None:
    _changing_run(cli, scripted)
    (session,) = json.loads(cli("session", "list", "--json").stdout)
    shown = cli("session", "diff")
    assert shown.returncode == 0, shown.stderr
    assert "A made.txt (+1 -0)" in shown.stdout and "M notes.txt (+1 -1)" in shown.stdout
    assert "-one\n+TWO\n" in shown.stdout and shown.stdout.rstrip().endswith("2 file(s) changed, +2 -1")
    as_json = json.loads(cli("session", "diff", session["id"], "--json").stdout)
    assert [(d["file"], d["status"]) for d in as_json] == [("made.txt", "added"), ("notes.txt", "modified")]

    export = json.loads(cli("session", "export", session["id"]).stdout)
    user_id = export["messages"][0]["info"]["id"]
    reverted = cli("session", "revert", session["id"], user_id)
    assert reverted.returncode == 0, reverted.stderr
    assert "reverted made.txt" in reverted.stdout and "reverted notes.txt" in reverted.stdout
    assert (cli.project / "notes.txt").read_text() == "one\n" and not (cli.project / "made.txt").exists()

    restored = cli("session", "unrevert", session["id"])
    assert restored.returncode == 0 and "Restored" in restored.stdout
    assert (cli.project / "notes.txt").read_text() == "TWO\n" and (cli.project / "made.txt").read_text() == "new\n"


def test_a_revert_over_an_outside_edit_names_the_file_and_force_goes_ahead(cli: Cli, scripted: Scripted) -> None:
    _changing_run(cli, scripted)
    (session,) = json.loads(cli("session", "list", "--json").stdout)
    user_id = json.loads(cli("session", "export", session["id"]).stdout)["messages"][0]["info"]["id"]
    (cli.project / "notes.txt").write_text("my edit\n")
    refused = cli("session", "revert", session["id"], user_id)
    assert refused.returncode == 1 and "notes.txt" in refused.stderr and "--force" in refused.stderr
    assert "Traceback" not in refused.stderr and (cli.project / "made.txt").exists()
    forced = cli("session", "revert", session["id"], user_id, "--force")
    assert forced.returncode == 0 and (cli.project / "notes.txt").read_text() == "one\n"


def test_json_events_carry_the_step_snapshots(cli: Cli, scripted: Scripted) -> None:
    lines = [json.loads(line) for line in _changing_run(cli, scripted, "--format", "json").splitlines()]
    steps = [line["part"] for line in lines if line["type"] in ("step_start", "step_finish")]
    assert len(steps) == 4 and all(len(step["snapshot"]) == 40 for step in steps)
    assert steps[2]["snapshot"] == steps[1]["snapshot"] != steps[0]["snapshot"]
