"""When a turn is over (reference 1.2): OpenCode's exit test, and the calls the doom-loop check looks back on.

Pure functions of the stored history, kept apart from the loop so they can be tested with plain values.
"""

from __future__ import annotations

from strata_core.history import Latest
from strata_core.message import AssistantMessage, ToolPart


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
