"""What live progress draws: each running tool with its seconds, a model call as thinking once it is slow."""

from __future__ import annotations

from pathlib import Path

from strata_cli.progress import THINKING_AFTER, Progress, elapsed
from strata_core import bus as b
from strata_core import message as m

SESSION = "ses_1"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def bash(state: m.ToolState, part_id: str = "prt_1") -> m.ToolPart:
    return m.ToolPart(id=part_id, session_id=SESSION, message_id="msg_1", call_id="c", tool="bash", state=state)


def running(command: str) -> m.ToolStateRunning:
    return m.ToolStateRunning(input={"command": command}, time=m.PartTime(1))


def follow(progress: Progress, part: m.Part) -> None:
    progress.follow(b.PartUpdated(part), part, SESSION)


def test_a_running_tool_is_drawn_with_its_seconds_until_it_finishes() -> None:
    clock = Clock()
    progress = Progress(Path("/w"), clock=clock)
    follow(progress, bash(running("make test")))
    clock.now += 65
    assert progress.lines() == ["$ make test · 1m 05s"]
    done = m.ToolStateCompleted(
        input={"command": "make test"}, output="ok", title="", metadata={}, time=m.ToolCompletedTime(start=1, end=2)
    )
    follow(progress, bash(done))
    assert progress.lines() == []


def test_a_model_call_shows_as_thinking_only_once_it_is_slow_and_stops_at_its_first_output() -> None:
    clock = Clock()
    progress = Progress(Path("/w"), clock=clock)
    progress.follow(b.SessionStatus(SESSION, "busy"), None, SESSION)
    assert progress.active and progress.lines() == []  # a quick answer needs no line
    clock.now += THINKING_AFTER + 1
    assert progress.lines() == [f"thinking · {elapsed(THINKING_AFTER + 1)}"]
    progress.follow(b.PartDelta(SESSION, "msg_1", "prt_2", "text", "Hi"), None, SESSION)
    assert not progress.active


def test_after_the_last_tool_ends_the_next_model_call_is_awaited() -> None:
    clock = Clock()
    progress = Progress(Path("/w"), clock=clock)
    follow(progress, bash(running("a"), "prt_a"))
    follow(progress, bash(running("b"), "prt_b"))
    failed = m.ToolStateError(input={"command": "a"}, error="boom", time=m.PartTime(1, 2))
    follow(progress, bash(failed, "prt_a"))
    assert [line.split(" · ")[0] for line in progress.lines()] == ["$ b"]
    progress.follow(b.SessionStatus(SESSION, "idle"), None, SESSION)
    assert progress.tools_running and len(progress.lines()) == 1  # idle ends the thinking, not a running tool


def test_a_retry_counts_down_to_the_next_attempt_until_the_model_answers() -> None:
    clock = Clock()
    progress = Progress(Path("/w"), clock=clock)
    progress.follow(b.SessionRetry(SESSION, attempt=1, delay=8.0, message="Overloaded"), None, SESSION)
    clock.now += 3
    assert progress.lines() == ["↻ next attempt in 5s"]
    progress.follow(b.PartDelta(SESSION, "msg_1", "prt_2", "text", "Hi"), None, SESSION)
    assert not progress.active


def test_once_the_countdown_is_over_the_new_attempt_is_awaited_as_thinking() -> None:
    clock = Clock()
    progress = Progress(Path("/w"), clock=clock)
    progress.follow(b.SessionRetry(SESSION, attempt=1, delay=2.0, message="Overloaded"), None, SESSION)
    clock.now += 2
    assert progress.lines() == [] and progress.active  # the attempt has just begun
    clock.now += THINKING_AFTER
    assert progress.lines() == [f"thinking · {elapsed(THINKING_AFTER)}"]
