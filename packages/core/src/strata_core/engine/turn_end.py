"""When a turn is over (reference 1.2): OpenCode's exit test, and the calls the doom-loop check looks back on.

Pure functions of the stored history, kept apart from the loop so they can be tested with plain values.
"""

from __future__ import annotations

from collections.abc import Sequence

from strata_core.history import Latest
from strata_core.message import AssistantMessage, MessageWithParts, ToolPart


def turn_finished(state: Latest) -> bool:
    """OpenCode's exit test: the newest answer finished for good, after the newest user message."""
    user, answer = state.user, state.assistant
    if user is None or answer is None or not isinstance(answer.info, AssistantMessage):
        return False
    if not answer.info.finish or answer.info.finish == "tool-calls":
        return False
    # A "stop" that still carries tool calls keeps going; calls an abort left behind do not count.
    if any(isinstance(p, ToolPart) and not p.provider_executed and not p.is_orphaned_interrupt for p in answer.parts):
        return False
    return user.info.id < answer.info.id


def turn_tool_calls(history: Sequence[MessageWithParts], user_id: str) -> list[ToolPart]:
    """Tool calls made since the newest user message, oldest first (the doom-loop check's window)."""
    return [
        part
        for message in history
        if isinstance(message.info, AssistantMessage) and message.info.id > user_id
        for part in message.parts
        if isinstance(part, ToolPart)
    ]
