"""`--format json`: one object per line, each part printed once when complete, stable field names."""

from __future__ import annotations

import json
from typing import Any

from session_records import assistant_message

from strata_cli.json_events import JsonEventWriter, print_failure_without_session
from strata_core import bus as b
from strata_core import message as m

SESSION = "ses_1"


def _assistant(message_id: str = "msg_2") -> m.AssistantMessage:
    return assistant_message(SESSION, "msg_1", message_id)


def _user() -> m.UserMessage:
    return m.UserMessage(
        id="msg_1", session_id=SESSION, time=m.MessageTime(created=1), agent="build", model=m.ModelRef("mock", "x")
    )


def _writer() -> tuple[JsonEventWriter, list[str]]:
    lines: list[str] = []
    return JsonEventWriter(SESSION, lines.append, clock=lambda: 42), lines


def _parsed(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def test_every_line_carries_type_timestamp_and_session() -> None:
    writer, lines = _writer()
    writer.start(agent="build", model="mock/gpt-4o-mock", title="New session")
    writer.finish(ok=True)
    first, last = _parsed(lines)
    assert first == {
        "type": "session",
        "timestamp": 42,
        "sessionID": SESSION,
        "agent": "build",
        "model": "mock/gpt-4o-mock",
        "title": "New session",
    }
    assert last == {"type": "done", "timestamp": 42, "sessionID": SESSION, "ok": True, "finish": None}


def test_text_is_printed_once_when_complete_and_user_parts_are_not_printed() -> None:
    writer, lines = _writer()
    writer.handle(b.MessageUpdated(_user()))
    writer.handle(b.PartUpdated(m.TextPart(id="prt_u", session_id=SESSION, message_id="msg_1", text="hi")))
    writer.handle(b.MessageUpdated(_assistant()))
    part = m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", time=m.PartTime(start=1))
    writer.handle(b.PartUpdated(part))
    writer.handle(b.PartDelta(SESSION, "msg_2", "prt_1", "text", "Hel"))
    writer.handle(b.PartDelta(SESSION, "msg_2", "prt_1", "text", "lo."))
    done = m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", text="Hello.", time=m.PartTime(1, 2))
    writer.handle(b.PartUpdated(done))
    events = _parsed(lines)
    assert [e["type"] for e in events] == ["text"]
    assert events[0]["part"]["text"] == "Hello."
    assert events[0]["part"]["messageID"] == "msg_2"


def test_tool_use_is_printed_when_the_call_finishes_and_step_finish_sets_done() -> None:
    writer, lines = _writer()
    writer.handle(b.MessageUpdated(_assistant()))
    running = m.ToolPart(
        id="prt_t",
        session_id=SESSION,
        message_id="msg_2",
        call_id="c1",
        tool="read",
        state=m.ToolStateRunning(input={"filePath": "/w/a"}, time=m.PartTime(start=1)),
    )
    writer.handle(b.PartUpdated(running))
    failed = m.ToolPart(
        id="prt_t",
        session_id=SESSION,
        message_id="msg_2",
        call_id="c1",
        tool="read",
        state=m.ToolStateError(input={"filePath": "/w/a"}, error="File not found", time=m.PartTime(1, 2)),
    )
    writer.handle(b.PartUpdated(failed))
    finish = m.StepFinishPart(id="prt_f", session_id=SESSION, message_id="msg_2", reason="tool-calls")
    writer.handle(b.PartUpdated(finish))
    writer.finish(ok=True)
    events = _parsed(lines)
    assert [e["type"] for e in events] == ["tool_use", "step_finish", "done"]
    assert events[0]["part"]["state"]["status"] == "error"
    assert events[0]["part"]["callID"] == "c1"
    assert events[2]["finish"] == "tool-calls"


def test_an_unfinished_text_part_is_flushed_before_done_with_the_text_its_deltas_brought() -> None:
    writer, lines = _writer()
    writer.handle(b.MessageUpdated(_assistant()))
    part = m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", text="par", time=m.PartTime(start=1))
    writer.handle(b.PartUpdated(part))
    writer.handle(b.PartDelta(SESSION, "msg_2", "prt_1", "text", "tial"))
    writer.handle(b.PartDelta("ses_other", "msg_9", "prt_9", "text", "not ours"))
    writer.finish(ok=False)
    events = _parsed(lines)
    assert [(e["type"], e.get("ok")) for e in events] == [("text", None), ("done", False)]
    assert events[0]["part"]["text"] == "partial"


def test_errors_retries_and_other_sessions() -> None:
    writer, lines = _writer()
    writer.handle(b.SessionError(SESSION, m.MessageError("APIError", "boom", {"status": 500})))
    writer.handle(b.SessionError("ses_other", m.MessageError("APIError", "not ours")))
    writer.handle(b.SessionRetry(SESSION, attempt=1, delay=2.0, message="rate limited"))
    events = _parsed(lines)
    # OpenCode's `{name, data: {message, ...}}`, and Strata's own top-level `message` beside it.
    assert events[0]["error"] == {"name": "APIError", "message": "boom", "data": {"message": "boom", "status": 500}}
    assert events[1] == {
        "type": "retry",
        "timestamp": 42,
        "sessionID": SESSION,
        "attempt": 1,
        "delay": 2.0,
        "message": "rate limited",
    }
    assert len(events) == 2


def _tool(part_id: str, state: m.ToolState) -> m.ToolPart:
    return m.ToolPart(id=part_id, session_id=SESSION, message_id="msg_2", call_id=part_id, tool="read", state=state)


def test_a_steps_finish_is_printed_after_its_tool_calls_finish() -> None:
    """The model's stream ends (step-finish) while its tools still run; OpenCode prints the calls first."""
    writer, lines = _writer()
    writer.handle(b.MessageUpdated(_assistant()))
    writer.handle(b.PartUpdated(m.StepStartPart(id="prt_s", session_id=SESSION, message_id="msg_2")))
    running = m.ToolStateRunning(input={}, time=m.PartTime(start=1))
    writer.handle(b.PartUpdated(_tool("prt_a", running)))
    writer.handle(b.PartUpdated(_tool("prt_b", running)))
    finish = m.StepFinishPart(id="prt_f", session_id=SESSION, message_id="msg_2", reason="tool-calls")
    writer.handle(b.PartUpdated(finish))
    completed = m.ToolStateCompleted(
        input={}, output="ok", title="a", metadata={}, time=m.ToolCompletedTime(start=1, end=2)
    )
    writer.handle(b.PartUpdated(_tool("prt_b", completed)))
    assert [e["type"] for e in _parsed(lines)] == ["step_start", "tool_use"]
    writer.handle(b.PartUpdated(_tool("prt_a", completed)))
    writer.finish(ok=True)
    events = _parsed(lines)
    assert [e["type"] for e in events] == ["step_start", "tool_use", "tool_use", "step_finish", "done"]
    assert [e["part"]["id"] for e in events[1:3]] == ["prt_b", "prt_a"]  # as they finish
    assert events[-1]["finish"] == "tool-calls"


def test_a_held_step_finish_is_flushed_before_done_when_its_calls_never_finish() -> None:
    writer, lines = _writer()
    writer.handle(b.MessageUpdated(_assistant()))
    writer.handle(b.PartUpdated(_tool("prt_a", m.ToolStateRunning(input={}, time=m.PartTime(start=1)))))
    writer.handle(b.PartUpdated(m.StepFinishPart(id="prt_f", session_id=SESSION, message_id="msg_2", reason="stop")))
    writer.finish(ok=False)
    assert [e["type"] for e in _parsed(lines)] == ["tool_use", "step_finish", "done"]


def test_the_failure_that_ended_the_run_is_printed_once_before_done() -> None:
    refusal = m.MessageError("NoResponderError", "Permission 'read' for .env needs approval")
    writer, lines = _writer()
    writer.finish(ok=False, failure=refusal)
    writer.finish(ok=False, failure=refusal)  # a second end (a failure escaping afterwards) prints nothing
    assert [(e["type"], e.get("error", {}).get("name")) for e in _parsed(lines)] == [
        ("error", "NoResponderError"),
        ("done", None),
    ]
    model_error = m.MessageError("APIError", "boom")
    writer, lines = _writer()
    writer.handle(b.SessionError(SESSION, model_error))
    writer.finish(ok=False, failure=model_error)
    assert [e["type"] for e in _parsed(lines)] == ["error", "done"]


def test_a_failure_before_any_session_prints_error_and_done_without_a_session() -> None:
    lines: list[str] = []
    print_failure_without_session(lines.append, m.MessageError("ModelNotFoundError", "No model"), clock=lambda: 7)
    assert _parsed(lines) == [
        {
            "type": "error",
            "timestamp": 7,
            "sessionID": None,
            "error": {"name": "ModelNotFoundError", "message": "No model", "data": {"message": "No model"}},
        },
        {"type": "done", "timestamp": 7, "sessionID": None, "ok": False, "finish": None},
    ]
