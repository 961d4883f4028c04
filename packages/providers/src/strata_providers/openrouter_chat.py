"""OpenRouter's chat completions, as OpenCode sends them through `@openrouter/ai-sdk-provider`.

The same wire as `openai_chat`, shaped the way that SDK shapes it: the messages come before the provider
options (`usage`, `reasoning`), system text always goes as text parts, a cache breakpoint sits on a part of a
system or user message (a string becomes one text part to carry it) or on a tool message itself, never on an
assistant message, and each tool message names its tool. No `stream_options`: `usage.include` asks for usage.
"""

from __future__ import annotations

from typing import Any

from strata_core.llm import ModelInfo, ModelMessage, ModelRequest, SystemModelMessage, ToolModelMessage
from strata_providers.caching import CACHED_SYSTEM_BLOCKS, EPHEMERAL, cached_tail, is_anthropic_family
from strata_providers.chat_body import close_body, opening_fields, provider_options
from strata_providers.chat_messages import chat_entries, kept_entries
from strata_providers.wire_json import FragmentList, encode_json


def openrouter_request_body(info: ModelInfo, request: ModelRequest, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON body for one call, field order as OpenCode sends it; `tools` already in chat form."""
    body = opening_fields(info, request)
    body["messages"] = openrouter_messages(request, cache=is_anthropic_family(info))
    body.update(provider_options(request))
    close_body(body, request, tools)
    return body


def openrouter_messages(request: ModelRequest, *, cache: bool) -> list[dict[str, Any]]:
    system: list[dict[str, Any]] = [_system(text) for text in request.system]
    if cache:
        for entry in system[:CACHED_SYSTEM_BLOCKS]:
            entry["content"][-1]["cache_control"] = dict(EPHEMERAL)
    tail = cached_tail(request.messages) if cache else frozenset()
    items, fragments = kept_entries(request.messages, tail, "openrouter", _entries, _mark)
    return FragmentList([*system, *items], [*(encode_json(entry) for entry in system), *fragments])


def _entries(message: ModelMessage) -> list[dict[str, Any]]:
    """One message as the SDK sends it, without a cache mark."""
    if isinstance(message, SystemModelMessage):
        return [_system(message.content)]
    entries = chat_entries(message)
    if isinstance(message, ToolModelMessage):
        names = [result.tool_name for result in message.content if not result.provider_executed]
        for entry, name in zip(entries, names, strict=True):
            entry["name"] = name
    return entries


def _system(text: str) -> dict[str, Any]:
    return {"role": "system", "content": [{"type": "text", "text": text}]}


def _mark(entry: dict[str, Any]) -> None:
    if entry["role"] == "assistant":
        return  # the SDK carries no breakpoint on an assistant message
    if entry["role"] == "tool":
        entry["cache_control"] = dict(EPHEMERAL)
        return
    content = entry["content"]
    if isinstance(content, str):
        entry["content"] = content = [{"type": "text", "text": content}]
    if content:
        content[-1]["cache_control"] = dict(EPHEMERAL)
