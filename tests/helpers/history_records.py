"""Terse builders for histories: messages with parts, as plain values."""

from __future__ import annotations

import itertools
from typing import Any

from strata_core import llm
from strata_core import message as m

SESSION = "ses_test"
_counter = itertools.count()

MODEL = llm.ModelInfo(provider_id="test", id="test-model", npm="@ai-sdk/openai-compatible")


def model(npm: str, *, api_id: str = "", media: llm.MediaInToolResults = "none") -> llm.ModelInfo:
    """A model of provider `test`, id `test-model` (so the default assistant messages count as its own)."""
    return llm.ModelInfo(
        provider_id="test",
        id="test-model",
        api_id=api_id,
        npm=npm,
        capabilities=llm.ModelCapabilities(media_in_tool_results=media),
    )


def _part_id() -> str:
    return f"prt_{next(_counter):06d}"


def user(message_id: str, *parts: m.Part) -> m.MessageWithParts:
    info = m.UserMessage(
        id=message_id,
        session_id=SESSION,
        time=m.MessageTime(created=0),
        agent="build",
        model=m.ModelRef(provider_id="test", model_id="test-model"),
    )
    return m.MessageWithParts(info, [_adopt(p, message_id) for p in parts])


def assistant(
    message_id: str,
    *parts: m.Part,
    parent: str = "msg_user",
    error: m.MessageError | None = None,
    model_ref: tuple[str, str] = ("test", "test-model"),
    summary: bool = False,
    finish: str | None = None,
) -> m.MessageWithParts:
    info = m.AssistantMessage(
        id=message_id,
        session_id=SESSION,
        parent_id=parent,
        time=m.MessageTime(created=0),
        provider_id=model_ref[0],
        model_id=model_ref[1],
        mode="build",
        agent="build",
        path=m.PathInfo(cwd="/", root="/"),
        error=error,
        summary=summary,
        finish=finish,
    )
    return m.MessageWithParts(info, [_adopt(p, message_id) for p in parts])


def _adopt(part: m.Part, message_id: str) -> m.Part:
    part.message_id = message_id
    return part


def text(value: str, **kwargs: Any) -> m.TextPart:
    return m.TextPart(id=_part_id(), session_id=SESSION, message_id="", text=value, **kwargs)


def reasoning(value: str, metadata: dict[str, Any] | None = None) -> m.ReasoningPart:
    return m.ReasoningPart(id=_part_id(), session_id=SESSION, message_id="", text=value, metadata=metadata)


def file(mime: str, url: str, filename: str | None = None) -> m.FilePart:
    return m.FilePart(id=_part_id(), session_id=SESSION, message_id="", mime=mime, url=url, filename=filename)


def step_start() -> m.StepStartPart:
    return m.StepStartPart(id=_part_id(), session_id=SESSION, message_id="")


def compaction(tail_start_id: str | None = None) -> m.CompactionPart:
    return m.CompactionPart(id=_part_id(), session_id=SESSION, message_id="", auto=True, tail_start_id=tail_start_id)


def subtask() -> m.SubtaskPart:
    return m.SubtaskPart(id=_part_id(), session_id=SESSION, message_id="", prompt="p", description="d", agent="general")


def tool(
    state: m.ToolState, *, name: str = "bash", call_id: str = "call_1", metadata: dict[str, Any] | None = None
) -> m.ToolPart:
    return m.ToolPart(
        id=_part_id(), session_id=SESSION, message_id="", call_id=call_id, tool=name, state=state, metadata=metadata
    )


def completed(
    output: str,
    *,
    input: dict[str, Any] | None = None,
    attachments: list[m.FilePart] | None = None,
    compacted: int | None = None,
) -> m.ToolStateCompleted:
    return m.ToolStateCompleted(
        input=input if input is not None else {"command": "ls"},
        output=output,
        title="t",
        metadata={},
        time=m.ToolCompletedTime(start=0, end=1, compacted=compacted),
        attachments=attachments,
    )


def failed(error: str, metadata: dict[str, Any] | None = None) -> m.ToolStateError:
    return m.ToolStateError(input={"command": "ls"}, error=error, time=m.PartTime(start=0, end=1), metadata=metadata)


def running() -> m.ToolStateRunning:
    return m.ToolStateRunning(input={"path": "/tmp"}, time=m.PartTime(start=0))
