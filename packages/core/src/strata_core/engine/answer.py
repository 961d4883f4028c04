"""An assistant message as a step (or a subtask, or a summary) starts it, and its tokens from a call's usage."""

from __future__ import annotations

from strata_core import llm
from strata_core.message import AssistantMessage, MessageTime, ModelRef, PathInfo, Tokens, UserMessage


def new_answer(
    parent: UserMessage,
    agent: str,
    model: ModelRef,
    path: PathInfo,
    message_id: str,
    created: int,
    *,
    summary: bool = False,
) -> AssistantMessage:
    """An empty assistant message answering `parent`, as a step (or a subtask, or a summary) starts one."""
    return AssistantMessage(
        id=message_id,
        session_id=parent.session_id,
        parent_id=parent.id,
        time=MessageTime(created),
        model_id=model.model_id,
        provider_id=model.provider_id,
        mode=agent,
        agent=agent,
        variant=model.variant,
        path=path,
        summary=summary,
    )


def tokens_from_usage(usage: llm.Usage) -> Tokens:
    return Tokens(
        input=usage.input_tokens,
        output=usage.output_tokens,
        reasoning=usage.reasoning_tokens,
        cache_read=usage.cache_read_tokens,
        cache_write=usage.cache_write_tokens,
        total=usage.total_tokens,
    )
