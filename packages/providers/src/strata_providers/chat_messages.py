"""A request's tools and messages in chat-completions form, shared by the OpenAI-compatible and OpenRouter shapes.

`openai_chat` sends `chat_messages` as they are; `openrouter_chat` reshapes the system entries and cache marks
its SDK's way but converts each message with `chat_entries` like the other. Both return `FragmentList`s: each
history message is converted and encoded once (`wire_json`), and a step's body joins the texts kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from typing import Any

from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ModelMessage,
    ModelRequest,
    SystemModelMessage,
    TextContent,
    ToolDefinition,
    ToolModelMessage,
    ToolOutput,
    UserModelMessage,
)
from strata_providers.caching import EPHEMERAL, cached_tail
from strata_providers.wire_json import FragmentList, carried, converted, encode_json


def chat_tools(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's tools as chat-completions functions; none when the call may not use them."""
    if not request.tools or request.tool_choice == "none":
        return []
    items: list[dict[str, Any]] = []
    fragments: list[bytes] = []
    for tool in request.tools:  # a turn's steps share their tool definitions, so each is encoded once
        item, fragment = converted(tool, "chat-tool", partial(_chat_tool, tool))
        items.append(item)
        fragments.append(fragment)
    return FragmentList(items, fragments)


def _chat_tool(tool: ToolDefinition) -> tuple[dict[str, Any], bytes]:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    entry = {"type": "function", "function": function}
    return entry, encode_json(entry)


def chat_messages(
    request: ModelRequest, *, cache: bool = False, interleaved: str | None = None
) -> list[dict[str, Any]]:
    """System strings and conversation as chat messages; with `cache`, OpenCode's cache breakpoints; with
    `interleaved`, every assistant message carries its reasoning (maybe empty) in that field."""
    system: list[dict[str, Any]] = [{"role": "system", "content": text} for text in request.system]
    if cache:
        for entry in system[:2]:
            entry["cache_control"] = dict(EPHEMERAL)
    tail = cached_tail(request.messages) if cache else frozenset()
    entries = partial(chat_entries, interleaved=interleaved)
    items, fragments = kept_entries(request.messages, tail, ("chat", interleaved), entries, _mark_for_cache)
    return FragmentList([*system, *items], [*(encode_json(entry) for entry in system), *fragments])


Entries = Callable[[ModelMessage], list[dict[str, Any]]]
"""One message as a chat shape's entries, without a cache mark."""
Converted = tuple[list[dict[str, Any]], list[bytes]]
"""A message's wire entries and the JSON text of each."""
Carried = tuple[list[dict[str, Any]], tuple[bytes, ...]]
"""Messages converted so far: their entries, and their JSON in pieces (one per request that added some)."""


def kept_entries(
    messages: Sequence[ModelMessage],
    tail: frozenset[int],
    variant: Hashable,
    entries: Entries,
    mark: Callable[[dict[str, Any]], None],
) -> Converted:
    """The messages' entries in a chat shape and their JSON, made once per message object and carried from
    the step before up to the first cache breakpoint (`wire_json`); the messages at `tail` get fresh entries
    with `mark` on the last, since the marks move on with every step. `variant` names the shape."""

    def convert(message: ModelMessage) -> Converted:
        return converted(message, variant, partial(_encoded, entries, message))

    def add(so_far: Carried, added: Sequence[ModelMessage]) -> Carried:
        items, joined = so_far
        items = list(items)
        pieces: list[bytes] = []
        for message in added:
            more, fragments = convert(message)
            items += more
            pieces += fragments
        return items, (*joined, b",".join(pieces)) if pieces else joined

    settled = min(tail, default=len(messages))
    items, joined = carried(messages[:settled], variant, _nothing, add)
    items, fragments = list(items), list(joined)
    for index in range(settled, len(messages)):
        if index in tail:
            fresh = entries(messages[index])
            for entry in fresh[-1:]:
                mark(entry)
            done: Converted = (fresh, [encode_json(entry) for entry in fresh])
        else:
            done = convert(messages[index])
        items += done[0]
        fragments += done[1]
    return items, fragments


def _nothing() -> Carried:
    return [], ()


def _encoded(entries: Entries, message: ModelMessage) -> Converted:
    made = entries(message)
    return made, [encode_json(entry) for entry in made]


def chat_entries(message: ModelMessage, interleaved: str | None = None) -> list[dict[str, Any]]:
    """One model message as chat-completions messages (a tool message holds one per result)."""
    if isinstance(message, SystemModelMessage):
        return [{"role": "system", "content": message.content}]
    if isinstance(message, UserModelMessage):
        return [{"role": "user", "content": _user_content(message)}]
    if isinstance(message, AssistantModelMessage):
        return [_assistant_message(message, interleaved)]
    return _tool_messages(message)


def _user_content(message: UserModelMessage) -> str | list[dict[str, Any]]:
    parts = message.content
    if len(parts) == 1 and isinstance(parts[0], TextContent):
        return parts[0].text
    return [_user_part(part) for part in parts]


def _user_part(part: TextContent | FileContent) -> dict[str, Any]:
    if isinstance(part, TextContent):
        return {"type": "text", "text": part.text}
    if part.media_type.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": part.data}}
    if part.media_type == "application/pdf":
        return {"type": "file", "file": {"filename": part.filename or "file.pdf", "file_data": part.data}}
    # Chat completions has no slot for other files; say so rather than fail the whole request.
    return {"type": "text", "text": f"[Attached {part.media_type}: {part.filename or 'file'}]"}


def _assistant_message(message: AssistantModelMessage, interleaved: str | None) -> dict[str, Any]:
    text = "".join(part.text for part in message.content if part.type == "text")
    reasoning = "".join(part.text for part in message.content if part.type == "reasoning")
    entry: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning and not interleaved:
        entry["reasoning_content"] = reasoning  # replayed as @ai-sdk/openai-compatible does (oracle-checked)
    calls = [
        {
            "id": part.call_id,
            "type": "function",
            "function": {"name": part.tool_name, "arguments": _compact_json(part.input)},
        }
        for part in message.content
        if part.type == "tool-call" and not part.provider_executed
    ]
    if calls:
        entry["tool_calls"] = calls
    if interleaved:  # the model's declared field, after the calls and even when empty (oracle-checked)
        entry[interleaved] = reasoning
    return entry


def _tool_messages(message: ToolModelMessage) -> list[dict[str, Any]]:
    return [
        {"role": "tool", "tool_call_id": result.call_id, "content": tool_output_text(result.output)}
        for result in message.content
        if not result.provider_executed
    ]


def tool_output_text(output: ToolOutput) -> str:
    """A tool result as chat completions can carry it: text only (a tool message takes no images)."""
    if output.kind != "content" or not output.media:
        return output.text
    omitted = ", ".join(media.filename or media.media_type for media in output.media)
    return f"{output.text}\n\n[Media omitted, this endpoint takes no media in tool results: {omitted}]"


def _mark_for_cache(entry: dict[str, Any]) -> None:
    # Where @ai-sdk/openai-compatible puts a part-level cache marker: the message itself for a plain string,
    # the last part of a part list, the last tool call of an assistant turn (an assistant's text loses it).
    content = entry.get("content")
    if entry["role"] == "assistant":
        calls = entry.get("tool_calls")
        if calls:
            calls[-1]["cache_control"] = dict(EPHEMERAL)
    elif isinstance(content, list) and content:
        content[-1]["cache_control"] = dict(EPHEMERAL)
    else:
        entry["cache_control"] = dict(EPHEMERAL)


def _compact_json(value: Mapping[str, Any]) -> str:
    # JavaScript's JSON.stringify spacing, so replayed arguments are byte-identical to what OpenCode sends.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
