"""How steps and turns end (reference 1.2): the typed ends, OpenCode's exit test, and the calls the doom-loop
check looks back on.

Pure functions of the stored history, kept apart from the loop so they can be tested with plain values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, TypeAlias

from strata_core.history import Latest
from strata_core.message import ABORTED_ERROR, AssistantMessage, ToolPart


class StepEnd(StrEnum):
    """How one step of a turn ended, as the processor and the loop report it."""

    CONTINUE = "continue"
    """Step again: tool calls were answered, or a task ran."""
    STOP = "stop"
    """The turn is over for now: the model finished, failed, or a permission refusal blocked it."""
    COMPACT = "compact"
    """The context overflowed: summarise the session, then go on."""


LoopStep: TypeAlias = Literal[StepEnd.CONTINUE, StepEnd.STOP]
"""What a step means to the loop once a compaction request is handled: go on or stop."""


class TurnEnd(StrEnum):
    """How a turn's answer ended, for whoever shows it (an exit code, a status line)."""

    FINISHED = "finished"
    FAILED = "failed"
    ABORTED = "aborted"
    """Cancelled (Ctrl-C, `loop.cancel`): stored with OpenCode's `MessageAbortedError`."""

    @classmethod
    def of(cls, answer: AssistantMessage) -> TurnEnd:
        if answer.error is None:
            return cls.FINISHED
        return cls.ABORTED if answer.error.name == ABORTED_ERROR else cls.FAILED


def turn_finished(state: Latest) -> bool:
    """OpenCode's exit test: the newest answer finished for good, after the newest user message.

    "After" is the stored order (OpenCode compares ids, `lastUser.id < lastAssistant.id`): a session whose last
    stored message is a user message gets an answer, whatever its ids.
    """
    user, answer = state.user, state.assistant
    if user is None or answer is None or not isinstance(answer.info, AssistantMessage):
        return False
    if not answer.info.finish or answer.info.finish == "tool-calls":
        return False
    # A "stop" that still carries tool calls keeps going; calls an abort left behind do not count.
    if any(isinstance(p, ToolPart) and not p.provider_executed and not p.is_orphaned_interrupt for p in answer.parts):
        return False
    return any(message is answer for message in state.since_user)


def turn_tool_calls(state: Latest) -> list[ToolPart]:
    """Tool calls made since the newest user message, oldest first (the doom-loop check's window)."""
    return [
        part
        for message in state.since_user
        if isinstance(message.info, AssistantMessage)
        for part in message.parts
        if isinstance(part, ToolPart)
    ]
