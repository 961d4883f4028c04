"""Pruning: which old tool outputs to mark compacted so a long session stops paying for them (reference 9.6)."""

from __future__ import annotations

from collections.abc import Sequence

from strata_core import message as m

PRUNE_PROTECT_TOKENS = 40_000
"""The newest tool outputs, up to this many estimated tokens, are never pruned."""
PRUNE_MINIMUM_TOKENS = 20_000
"""Pruning only happens when it frees more than this many estimated tokens."""
PRUNE_PROTECTED_TOOLS = frozenset({"skill"})


def prune_candidates(
    messages: Sequence[m.MessageWithParts],
    *,
    protect: int = PRUNE_PROTECT_TOKENS,
    minimum: int = PRUNE_MINIMUM_TOKENS,
    protected_tools: frozenset[str] = PRUNE_PROTECTED_TOOLS,
) -> list[str]:
    """Ids of the completed tool parts whose output should be marked compacted (`time.compacted = now`).

    The last two turns are left alone; the walk goes back from there, stops at a summary or at a part
    already compacted, keeps the newest `protect` tokens of tool output, and offers the rest only if it
    adds up to more than `minimum`.
    """
    total = pruned = 0
    candidates: list[str] = []
    turns = 0
    for message in reversed(messages):
        info = message.info
        if isinstance(info, m.UserMessage):
            turns += 1
        if turns < 2:
            continue
        if isinstance(info, m.AssistantMessage) and info.summary:
            break
        for part in reversed(message.parts):
            if not isinstance(part, m.ToolPart) or not isinstance(part.state, m.ToolStateCompleted):
                continue
            if part.tool in protected_tools:
                continue
            if part.state.time.compacted:
                return candidates if pruned > minimum else []
            estimate = _estimate_tokens(part.state.output)
            total += estimate
            if total > protect:
                pruned += estimate
                candidates.append(part.id)
    return candidates if pruned > minimum else []


def _estimate_tokens(text: str) -> int:
    """OpenCode's estimate, `Math.round(length / 4)` (half rounds up, unlike Python's `round`)."""
    return (len(text) + 2) // 4
