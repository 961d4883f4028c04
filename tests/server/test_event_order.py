"""`/event` sends OpenCode's events in OpenCode's order for four turns: a text answer, a tool call, a
permission question answered once, and a turn aborted while its shell command runs (issue 25 item 4).

Each server is recorded once per module (`turn_events.record_turns`). The Strata-only tests pin the
sequence recorded from `opencode serve` 1.18.33 (written out below, so they run where OpenCode is not
installed); the live test records `opencode serve` itself and compares. Ids, times, heartbeats and delta
chunking are normalised away, and the events OpenCode forks beside a turn (title, diff summaries) are
compared as a sorted list, since OpenCode sends them in no fixed place (`turn_events.comparable`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest
from cli_harness import isolated_env, mock_provider_config
from server_harness import ASK_BASH, OPENCODE, ORACLE, opencode_serve, running_server
from turn_events import TURNS, Comparable, Event, comparable, model_script, record_turns

from strata_providers.testing import ScriptedServer

Recording = dict[str, list[Event]]

STARTED = [
    "session.created",
    "session.updated",  # the prompt's agent and model recorded on the session
    "message.updated user open",
    "message.part.updated text",
    "session.updated",
    "session.status busy",
    "message.updated assistant open",
    "session.status busy",  # the step's stream started
    "message.part.updated step-start",
]
FINISHED = [
    "message.part.updated step-finish",
    "message.updated assistant open",  # the step's tokens and cost
    "message.updated assistant completed",
    "session.status busy",
]
TEXT_STEP = [
    "message.part.updated text",
    "message.part.delta text",
    "message.part.updated text",
    *FINISHED,
]
NEXT_STEP = ["message.updated assistant open", "session.status busy", "message.part.updated step-start"]
IDLE = ["session.status idle", "session.idle"]
ASKED = ["message.part.updated tool bash pending", "message.part.updated tool bash running"]
ASKED += ["permission.asked", "permission.replied", "message.part.updated tool bash running"]
READ = ["message.part.updated tool read pending", "message.part.updated tool read running"]
READ += ["message.part.updated tool read completed"]
ECHOED = ["message.part.updated tool bash running", "message.part.updated tool bash completed"]  # its output
WROTE = [*FINISHED[:2], "message.part.updated patch", *FINISHED[2:]]  # the step's patch: the file it wrote
ABORTED = ["message.part.updated tool bash completed", "message.updated assistant completed"]


def beside(summaries: int) -> list[str]:
    """The title's `session.updated`, and for each diff summary its session, `session.diff` and user message."""
    return sorted(["session.updated", *["session.updated", "session.diff", "message.updated user open"] * summaries])


EXPECTED = {
    # One diff summary as the first step starts, and one per step that finished.
    "text": Comparable([*STARTED, *TEXT_STEP, *IDLE], beside(2)),
    "tool": Comparable([*STARTED, *READ, *FINISHED, *NEXT_STEP, *TEXT_STEP, *IDLE], beside(3)),
    "permission": Comparable([*STARTED, *ASKED, *ECHOED, *WROTE, *NEXT_STEP, *TEXT_STEP, *IDLE], beside(3)),
    # Told at once (error, idle), then the call ends completed and the message with it, and idle again.
    "abort": Comparable([*STARTED, *ASKED, "session.error", *IDLE, *ABORTED, *IDLE], beside(1)),
}


@pytest.fixture(scope="module")
def strata_recording(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recording]:
    base = tmp_path_factory.mktemp("strata-events")
    work = base / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "notes.txt").write_text("hi\n", encoding="utf-8")
    with ScriptedServer(model_script(str(work))) as model:
        config = {**mock_provider_config(model.base_url), "permission": ASK_BASH}
        (work / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
        with running_server(work, isolated_env(base)) as server:
            yield record_turns(server.url)


@pytest.fixture(scope="module")
def opencode_recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    if not OPENCODE.exists():
        pytest.skip(f"OpenCode 1.18.33 is not installed at {OPENCODE}")
    if not (ORACLE / "serve.sh").exists():
        pytest.skip(f"no oracle serve.sh at {ORACLE}")
    base = tmp_path_factory.mktemp("opencode-events")
    script = base / "script.json"
    script.write_text(json.dumps(model_script("__WORK__")), encoding="utf-8")
    with opencode_serve(base, script, {"notes.txt": "hi\n"}) as server:
        return record_turns(server.url)


@pytest.mark.parametrize("turn", TURNS)
def test_strata_sends_the_events_of_a_turn_in_opencodes_order(strata_recording: Recording, turn: str) -> None:
    assert comparable(strata_recording[turn]) == EXPECTED[turn]


def test_session_diff_has_opencodes_shape_and_the_files_changed(strata_recording: Recording) -> None:
    """OpenCode 1.18.33 sends every `session.diff` empty; Strata's carries the session's changed files."""
    from jsonschema import Draft202012Validator

    from strata_server.openapi import document

    components = document()["components"]
    validator = Draft202012Validator({**components["schemas"]["EventSessionDiff"], "components": components})
    diffs = [event for events in strata_recording.values() for event in events if event["type"] == "session.diff"]
    assert len(diffs) == 9
    for event in diffs:
        assert [error.message for error in validator.iter_errors(event)] == []
    changed = [[d["file"] for d in e["properties"]["diff"]] for e in strata_recording["permission"] if e in diffs]
    assert changed == [[], ["asked.txt"], ["asked.txt"]]


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.parametrize("turn", TURNS)
def test_the_events_of_a_turn_equal_opencode_serves(
    strata_recording: Recording, opencode_recording: Recording, turn: str
) -> None:
    assert comparable(strata_recording[turn]) == comparable(opencode_recording[turn])


@pytest.mark.slow
@pytest.mark.opencode_live
def test_the_pinned_order_is_the_recorded_one_where_opencode_runs(opencode_recording: Recording) -> None:
    """The expectations above are OpenCode's, not a reading of Strata's own output."""
    assert {turn: comparable(opencode_recording[turn]) for turn in TURNS} == EXPECTED
