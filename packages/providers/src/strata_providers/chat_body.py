"""The fields every chat-completions body opens and closes with, whichever SDK shape sits between them.

OpenCode's OpenAI-compatible and OpenRouter bodies differ in the middle (where the messages and the provider
options go, how messages are shaped) but start with the model and its sampling settings and end with the
tools and `stream` alike; `openai_chat` and `openrouter_chat` both build on these.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from strata_core.llm import ModelInfo, ModelRequest
from strata_providers.params import max_output_tokens

RESERVED = frozenset({"model", "messages", "tools", "tool_choice", "stream", "stream_options"})
"""Body fields a provider option may not replace."""


def opening_fields(info: ModelInfo, request: ModelRequest) -> dict[str, Any]:
    """`model`, `max_tokens` and the sampling settings the call sets, in OpenCode's order."""
    body: dict[str, Any] = {
        "model": info.api_model_id,
        "max_tokens": request.max_output_tokens or max_output_tokens(info),
    }
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.top_p is not None:
        body["top_p"] = request.top_p
    return body


def provider_options(request: ModelRequest) -> Iterator[tuple[str, Any]]:
    """The request's provider options, without any that would replace a field the body owns."""
    return ((key, value) for key, value in request.provider_options.items() if key not in RESERVED)


def close_body(body: dict[str, Any], request: ModelRequest, tools: list[dict[str, Any]]) -> None:
    """Add the tools (with the call's `tool_choice`, `auto` by default) and `stream`."""
    if tools:
        body["tools"] = tools
        body["tool_choice"] = request.tool_choice or "auto"
    body["stream"] = True
