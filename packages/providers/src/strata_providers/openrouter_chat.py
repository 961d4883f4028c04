"""OpenRouter's chat completions, as OpenCode sends them through `@openrouter/ai-sdk-provider`.

The same wire as `openai_chat`, shaped the way that SDK shapes it: the messages come before the provider
options (`usage`, `reasoning`), system text always goes as text parts, a cache breakpoint sits on a part of a
system or user message (a string becomes one text part to carry it) or on a tool message itself, never on an
assistant message, and each tool message names its tool. No `stream_options`: `usage.include` asks for usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from strata_core.llm import ModelInfo, ModelMessage, ModelRequest, SystemModelMessage, ToolModelMessage
from strata_providers.caching import CACHED_SYSTEM_BLOCKS, EPHEMERAL, cached_tail, is_anthropic_family
from strata_providers.chat_body import close_body, opening_fields, provider_options
from strata_providers.chat_messages import Carried, Converted, chat_entries
from strata_providers.wire_json import FragmentList, carried, converted, encode_json


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
    messages = request.messages
    tail = cached_tail(messages) if cache else frozenset()
    settled = min(tail, default=len(messages))
    # As `chat_messages`: up to the first breakpoint, what the last step sent and the messages added since.
    items, joined = carried(messages[:settled], "openrouter", _nothing, _add)
    items = [*system, *items]
    fragments = [*(encode_json(entry) for entry in system), *joined]
    for index in range(settled, len(messages)):
        if index in tail:  # marked for the cache: a fresh copy, since the mark moves on with every step
            entries = _entries(messages[index])
            for entry in entries[-1:]:
                _mark(entry)
            done: Converted = (entries, [encode_json(entry) for entry in entries])
        else:
            done = _converted(messages[index])
        items += done[0]
        fragments += done[1]
    return FragmentList(items, fragments)


def _nothing() -> Carried:
    return [], ()


def _add(so_far: Carried, added: Sequence[ModelMessage]) -> Carried:
    items, joined = so_far
    items = list(items)
    pieces: list[bytes] = []
    for message in added:
        entries, fragments = _converted(message)
        items += entries
        pieces += fragments
    return items, (*joined, b",".join(pieces)) if pieces else joined


def _converted(message: ModelMessage) -> Converted:
    return converted(message, "openrouter", partial(_encoded, message))


def _encoded(message: ModelMessage) -> Converted:
    entries = _entries(message)
    return entries, [encode_json(entry) for entry in entries]


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
