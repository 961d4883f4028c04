"""The turn summary's changes: found from the ends of the history, and not asked of git again for a range
already diffed (two snapshots, named by their content, always differ the same way)."""

from __future__ import annotations

from typing import Any

import pytest
from history_records import SESSION, assistant, text, user

from strata_core import message as m
from strata_core.session.summary import changes, snapshot_range, turn_of
from strata_core.snapshot.contract import FileDiff

pytestmark = pytest.mark.anyio


def step(message_id: str, parent: str, start: str | None, finish: str | None) -> m.MessageWithParts:
    return assistant(
        message_id,
        m.StepStartPart(id=f"prt_s{message_id}", session_id=SESSION, message_id=message_id, snapshot=start),
        text("done"),
        m.StepFinishPart(
            id=f"prt_f{message_id}", session_id=SESSION, message_id=message_id, reason="stop", snapshot=finish
        ),
        parent=parent,
        finish="stop",
    )


class CountingSnapshots:
    """Answers `diff` with one file named after the two snapshots, and counts the calls."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    async def diff(self, before: str, after: str) -> list[FileDiff]:
        self.asked.append((before, after))
        return [FileDiff(file=f"{before}..{after}", patch="", additions=1, deletions=0, status="modified")]

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the summary asked for {name}")


async def test_a_range_already_diffed_is_not_asked_of_the_snapshots_again() -> None:
    history = [user("msg_1", text("go")), step("msg_2", "msg_1", "a", "b"), step("msg_3", "msg_1", "b", "b")]
    snapshots = CountingSnapshots()
    first = await changes(snapshots, history)
    again = await changes(snapshots, history)
    assert [diff.file for diff in first] == [diff.file for diff in again] == ["a..b"]
    assert snapshots.asked == [("a", "b")]
    history.append(step("msg_4", "msg_1", "b", "c"))
    assert [diff.file for diff in await changes(snapshots, history)] == ["a..c"]
    assert snapshots.asked == [("a", "b"), ("a", "c")]
    other = CountingSnapshots()  # another snapshot service (another project) asks its own
    await changes(other, history)
    assert other.asked == [("a", "c")]


def test_the_range_runs_from_the_first_start_to_the_last_finish_that_has_a_snapshot() -> None:
    history = [
        user("msg_1", text("go")),
        step("msg_2", "msg_1", None, None),
        step("msg_3", "msg_1", "a", "b"),
        step("msg_4", "msg_1", "b", "c"),
        step("msg_5", "msg_1", "c", None),
    ]
    assert snapshot_range(history) == ("a", "c")
    assert snapshot_range(history[:2]) is None
    assert snapshot_range([user("msg_1", text("go")), step("msg_2", "msg_1", "a", None)]) is None


def test_a_turn_is_its_user_message_and_the_answers_to_it() -> None:
    history = [
        user("msg_1", text("one")),
        step("msg_2", "msg_1", "a", "b"),
        user("msg_3", text("two")),
        step("msg_4", "msg_3", "b", "c"),
        step("msg_5", "msg_3", "c", "d"),
        user("msg_6", text("three")),
    ]
    assert [message.info.id for message in turn_of(history, "msg_3")] == ["msg_3", "msg_4", "msg_5"]
    assert [message.info.id for message in turn_of(history, "msg_1")] == ["msg_1", "msg_2"]
    assert [message.info.id for message in turn_of(history, "msg_6")] == ["msg_6"]
