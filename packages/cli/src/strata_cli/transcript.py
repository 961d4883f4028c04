"""A stored session as plain text (`strata session show`): who said what, each tool call on one line with what
it showed when it ran under it (a command's output and failed exit code, an edit's diff, the files found)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from strata_cli.output import visible
from strata_cli.render import tool_line_for
from strata_cli.tool_details import tool_details
from strata_cli.usage_line import usage_line
from strata_core.message import AssistantMessage, MessageWithParts, ReasoningPart, SubtaskPart, TextPart, ToolPart
from strata_core.session import usage_of
from strata_core.session_info import SessionInfo


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


def _header(message: MessageWithParts) -> str:
    info = message.info
    if isinstance(info, AssistantMessage):
        return f"## {info.agent} · {info.model_ref}"
    return f"## user ({info.agent} · {info.model.ref})"


def _body(message: MessageWithParts, directory: Path) -> list[str]:
    lines: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart) and not part.synthetic and part.text.strip():
            lines.append(part.text.strip())
        elif isinstance(part, ReasoningPart) and part.text.strip():
            lines.append(f"(thinking) {part.text.strip().splitlines()[0]}")
        elif isinstance(part, SubtaskPart):
            lines.append(f"@{part.agent} {part.prompt.strip()}")
        elif isinstance(part, ToolPart):
            line = tool_line_for(part, directory)
            lines.append(line.plain() if line else f"… {part.tool} (did not finish)")
            lines += [detail.text for detail in tool_details(part, directory)]
    info = message.info
    if isinstance(info, AssistantMessage) and info.error is not None:
        lines.append(f"Error: {info.error.message}")
    return lines


def transcript_lines(info: SessionInfo, history: Sequence[MessageWithParts], directory: Path) -> list[str]:
    """The session's title and times, then each message under a `## who` header."""
    lines = [
        visible(f"# {info.title}", newlines=False),
        f"{info.id} · created {_when(info.time.created)} · updated {_when(info.time.updated)}",
    ]
    lines.append(usage_line(usage_of(history)))
    return lines + conversation_lines(history, directory)


def recent_turns(history: Sequence[MessageWithParts], turns: int) -> tuple[list[MessageWithParts], int]:
    """The messages of the last `turns` turns (a turn starts at a user message), and how many earlier turns
    were left out."""
    starts = [index for index, message in enumerate(history) if not isinstance(message.info, AssistantMessage)]
    if len(starts) <= turns:
        return list(history), 0
    return list(history[starts[-turns] :]), len(starts) - turns


def conversation_lines(history: Sequence[MessageWithParts], directory: Path) -> list[str]:
    """Each message under its `## who` header, as `transcript_lines` shows them, without the session header."""
    lines: list[str] = []
    for message in history:
        # Shown on a terminal: a stored command, output or answer must not move the cursor or set the title.
        lines += ["", visible(_header(message)), *(visible(line) for line in _body(message, directory))]
    return lines
