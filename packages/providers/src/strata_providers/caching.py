"""Where OpenCode puts prompt-cache breakpoints, for the model families that need them spelled out."""

from __future__ import annotations

from collections.abc import Sequence

from strata_core.llm import ModelInfo, ModelMessage, SystemModelMessage

EPHEMERAL = {"type": "ephemeral"}
CACHED_SYSTEM_BLOCKS = 2
CACHED_TAIL_MESSAGES = 2


def is_anthropic_family(info: ModelInfo) -> bool:
    """Claude models, however reached: they cache only what a request marks (OpenCode's rule)."""
    api_id = info.api_model_id.lower()
    return (
        info.npm == "@ai-sdk/anthropic"
        or info.provider_id == "anthropic"
        or "claude" in api_id
        or "anthropic" in api_id
    )


def cached_tail(messages: Sequence[ModelMessage]) -> frozenset[int]:
    """Indices of the last two non-system messages: the rolling breakpoint that makes follow-ups cheap."""
    found: list[int] = []
    for index in range(len(messages) - 1, -1, -1):  # from the end: a step's cost does not grow with the history
        if len(found) == CACHED_TAIL_MESSAGES:
            break
        if not isinstance(messages[index], SystemModelMessage):
            found.append(index)
    return frozenset(found)
