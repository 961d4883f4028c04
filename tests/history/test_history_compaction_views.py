"""`filter_compacted` (reference 6.2), `extend_compacted`, `latest` (1.2 step 2), `prune_candidates` (9.6)."""

from __future__ import annotations

from history_records import assistant, compaction, completed, subtask, text, tool, user

from strata_core import message as m
from strata_core.history import extend_compacted, filter_compacted, latest, prune_candidates


def ids(history: list[m.MessageWithParts]) -> list[str]:
    return [message.info.id for message in history]


# filter_compacted


def test_a_history_without_compaction_is_kept_whole() -> None:
    history = [user("msg_1", text("a")), assistant("msg_2", text("b"), parent="msg_1")]
    assert filter_compacted(history) == history


def test_history_starts_at_the_newest_answered_compaction_request() -> None:
    history = [
        user("msg_1", text("old question")),
        assistant("msg_2", text("old answer"), parent="msg_1"),
        user("msg_3", compaction()),
        assistant("msg_4", text("summary"), parent="msg_3", summary=True, finish="stop"),
        user("msg_5", text("go on")),
    ]
    assert ids(filter_compacted(history)) == ["msg_3", "msg_4", "msg_5"]


def test_a_compaction_without_a_finished_summary_hides_nothing() -> None:
    unfinished = assistant("msg_4", text("half a summary"), parent="msg_3", summary=True)
    failed = assistant(
        "msg_5", parent="msg_3", summary=True, finish="error", error=m.MessageError(name="APIError", message="x")
    )
    history = [user("msg_1", text("q")), user("msg_3", compaction()), unfinished, failed]
    assert filter_compacted(history) == history


def test_only_the_newest_compaction_counts() -> None:
    history = [
        user("msg_1", compaction()),
        assistant("msg_2", text("first summary"), parent="msg_1", summary=True, finish="stop"),
        user("msg_3", text("more work")),
        user("msg_4", compaction()),
        assistant("msg_5", text("second summary"), parent="msg_4", summary=True, finish="stop"),
    ]
    assert ids(filter_compacted(history)) == ["msg_4", "msg_5"]


def test_a_preserved_tail_comes_after_the_summary() -> None:
    history = [
        user("msg_1", text("ancient")),
        assistant("msg_2", text("ancient answer"), parent="msg_1"),
        user("msg_3", text("recent question")),
        assistant("msg_4", text("recent answer"), parent="msg_3"),
        user("msg_5", compaction(tail_start_id="msg_3")),
        assistant("msg_6", text("summary"), parent="msg_5", summary=True, finish="stop"),
        user("msg_7", text("continue")),
    ]
    assert ids(filter_compacted(history)) == ["msg_5", "msg_6", "msg_3", "msg_4", "msg_7"]


def test_a_tail_that_is_no_longer_in_history_falls_back_to_the_request() -> None:
    history = [
        user("msg_3", text("recent")),
        user("msg_5", compaction(tail_start_id="msg_deleted")),
        assistant("msg_6", text("summary"), parent="msg_5", summary=True, finish="stop"),
    ]
    assert ids(filter_compacted(history)) == ["msg_5", "msg_6"]


def test_a_history_extended_by_its_answers_is_the_history_filtered_again() -> None:
    history = [
        user("msg_1", text("ancient")),
        assistant("msg_2", text("ancient answer"), parent="msg_1", finish="stop"),
        user("msg_3", text("recent question")),
        assistant("msg_4", text("recent answer"), parent="msg_3", finish="tool-calls"),
        user("msg_5", compaction(tail_start_id="msg_3")),
        assistant("msg_6", text("summary"), parent="msg_5", summary=True, finish="stop"),
        user("msg_7", text("continue")),
        assistant("msg_8", text("working"), parent="msg_7", finish="tool-calls"),
        user("msg_9", compaction()),
        assistant("msg_10", text("second summary"), parent="msg_9", summary=True, finish="stop"),
        assistant("msg_11", text("more"), parent="msg_9", finish="stop"),
    ]
    for end in range(len(history)):
        extended = extend_compacted(filter_compacted(history[:end]), history[end : end + 1])
        if extended is None:  # a completed summary: only filtering again finds where the history starts
            assert history[end].info.role == "assistant" and history[end].info.summary
        else:
            assert ids(extended) == ids(filter_compacted(history[: end + 1]))
    assert extend_compacted(filter_compacted(history[:5]), history[5:6]) is None


# latest


def test_latest_picks_messages_by_stored_position_not_by_id() -> None:
    history = [
        user("msg_3", text("older")),
        assistant("msg_4", parent="msg_3", finish="stop"),
        user("msg_1", text("newer")),  # an id that sorts first, stored last: still the newest
    ]
    found = latest(history)
    assert found.user is not None and found.user.info.id == "msg_1"
    assert found.assistant is not None and found.assistant.info.id == "msg_4"
    assert found.finished is not None and found.finished.info.id == "msg_4"
    assert found.since_user == ()
    assert latest(history[:2]).since_user == (history[1],)


def test_finished_is_the_newest_assistant_with_a_finish_reason() -> None:
    history = [
        user("msg_1", text("q")),
        assistant("msg_2", parent="msg_1", finish="tool-calls"),
        assistant("msg_3", parent="msg_1"),
    ]
    found = latest(history)
    assert found.assistant is not None and found.assistant.info.id == "msg_3"
    assert found.finished is not None and found.finished.info.id == "msg_2"


def test_pending_tasks_are_compactions_and_subtasks_after_the_last_finished_reply() -> None:
    done_task = subtask()
    history = [
        user("msg_1", done_task),
        assistant("msg_2", parent="msg_1", finish="stop"),
        user("msg_3", text("q"), subtask()),
        user("msg_4", compaction()),
    ]
    found = latest(history)
    assert [type(t).__name__ for t in found.tasks] == ["SubtaskPart", "CompactionPart"]
    assert done_task not in found.tasks
    assert len(latest(history[:1]).tasks) == 1  # nothing finished yet: every task is pending


def test_latest_of_every_prefix_names_the_newest_messages_in_stored_order() -> None:
    history = [
        user("msg_1", text("q")),
        assistant("msg_2", parent="msg_1", finish="tool-calls"),
        assistant("msg_3", parent="msg_1"),
        user("msg_4", text("next"), subtask()),
        assistant("msg_5", parent="msg_4", finish="stop"),
        user("msg_6", compaction()),
        assistant("msg_7", parent="msg_6"),
    ]
    for end in range(1, len(history) + 1):
        shown = history[:end]
        found = latest(shown)
        users = [i for i, message in enumerate(shown) if message.info.role == "user"]
        answers = [i for i, message in enumerate(shown) if message.info.role == "assistant"]
        finished = [i for i in answers if shown[i].info.finish]  # type: ignore[union-attr]
        assert found.user is shown[users[-1]]
        assert found.assistant is (shown[answers[-1]] if answers else None)
        assert found.finished is (shown[finished[-1]] if finished else None)
        assert found.since_user == tuple(shown[users[-1] + 1 :])
        after = finished[-1] + 1 if finished else 0
        pending = [
            p for message in shown[after:] for p in message.parts if isinstance(p, m.CompactionPart | m.SubtaskPart)
        ]
        assert list(found.tasks) == pending


def test_latest_of_a_history_without_users_has_no_user() -> None:
    found = latest([])
    assert (found.user, found.assistant, found.finished, found.tasks) == (None, None, None, ())


# prune_candidates


def big(n_chars: int, name: str = "bash", compacted: int | None = None) -> m.ToolPart:
    return tool(completed("x" * n_chars, compacted=compacted), name=name)


def turn(n: int, *parts: m.Part) -> list[m.MessageWithParts]:
    return [user(f"msg_{n:03d}", text("q")), assistant(f"msg_{n:03d}a", *parts, parent=f"msg_{n:03d}")]


def test_old_tool_outputs_past_the_protected_budget_are_pruned() -> None:
    # 80k chars = 20k tokens per output: the first two (newest) fill the 40k protection, the rest go.
    old = [big(80_000) for _ in range(4)]
    history = [*turn(1, *old[:2]), *turn(2, *old[2:]), *turn(3, big(80_000)), *turn(4, big(80_000))]
    assert prune_candidates(history) == [old[1].id, old[0].id]


def test_the_last_two_turns_are_never_pruned() -> None:
    history = [*turn(1, big(400_000)), *turn(2, big(400_000))]
    assert prune_candidates(history) == []


def test_nothing_is_pruned_when_it_would_free_too_little() -> None:
    # The newest output fills the 40k protection exactly; the next one's 2k over is under the 20k minimum.
    history = [*turn(1, big(8_000), big(160_000)), *turn(2), *turn(3)]
    assert prune_candidates(history) == []


def test_skill_outputs_are_protected() -> None:
    skill = big(400_000, name="skill")
    history = [*turn(1, skill, big(200_000)), *turn(2, big(200_000)), *turn(3), *turn(4)]
    pruned = prune_candidates(history)
    assert skill.id not in pruned and len(pruned) == 2


def test_the_walk_stops_at_an_already_compacted_output() -> None:
    beyond = big(400_000)
    history = [
        *turn(1, beyond),
        *turn(2, big(40, compacted=5)),
        *turn(3, big(200_000), big(200_000)),
        *turn(4),
        *turn(5),
    ]
    pruned = prune_candidates(history)
    assert beyond.id not in pruned and len(pruned) == 2


def test_the_walk_stops_at_a_summary() -> None:
    beyond = big(400_000)
    summary = assistant("msg_002s", text("summary"), parent="msg_002", summary=True, finish="stop")
    history = [*turn(1, beyond), user("msg_002", compaction()), summary, *turn(3, big(100_000)), *turn(4), *turn(5)]
    assert prune_candidates(history) == []
    assert prune_candidates([*turn(1, beyond), *turn(3, big(100_000)), *turn(4), *turn(5)]) == [beyond.id]
