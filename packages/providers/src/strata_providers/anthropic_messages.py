"""The Anthropic Messages wire: `POST {baseURL}/messages`, as OpenCode sends it through `@ai-sdk/anthropic`.

System prompt as blocks, tool results in the user turn right after the tool use, signed thinking replayed,
and prompt-cache breakpoints where OpenCode puts them (first two system blocks, last two messages).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any

import httpx
from attrs import field, frozen

from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ModelInfo,
    ModelMessage,
    ModelRequest,
    ReasoningContent,
    StreamEvent,
    SystemModelMessage,
    TextContent,
    ToolModelMessage,
    ToolResultContent,
    UserModelMessage,
)
from strata_providers.anthropic_messages_stream import MessagesStreamDecoder
from strata_providers.caching import CACHED_SYSTEM_BLOCKS, CACHED_TAIL_MESSAGES, EPHEMERAL
from strata_providers.params import max_output_tokens
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint, WireRequest, open_stream, request_headers
from strata_providers.wire_json import FragmentList, carried, converted, encode_json

MESSAGES_PATH = "messages"
ANTHROPIC_VERSION = "2023-06-01"
_RESERVED = frozenset({"model", "system", "messages", "tools", "tool_choice", "stream"})
_TOOL_ID_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_DATA_URL = re.compile(r"^data:([^;,]+)?(;base64)?,(.*)$", re.DOTALL)

Block = dict[str, Any]


@frozen
class AnthropicMessagesModel:
    """A `LanguageModel` speaking Anthropic Messages to `endpoint`."""

    info: ModelInfo
    endpoint: Endpoint
    client: Callable[[], httpx.AsyncClient] = field(repr=False)
    retry: RetryPolicy = field(factory=RetryPolicy)

    def stream(self, request: ModelRequest) -> AbstractAsyncContextManager[AsyncIterator[StreamEvent]]:
        return open_stream(
            self.client(), self.wire_request(request), MessagesStreamDecoder, self.retry, self.endpoint.deadlines
        )

    def wire_request(self, request: ModelRequest) -> WireRequest:
        own = {"anthropic-version": ANTHROPIC_VERSION}
        if self.endpoint.api_key:
            own["x-api-key"] = self.endpoint.api_key
        return WireRequest(
            url=self.endpoint.url(MESSAGES_PATH),
            headers=request_headers(own, self.endpoint, self.info, request),
            body=messages_request_body(self.info, request),
            provider_id=self.info.provider_id,
            base_url=self.endpoint.base_url,
        )


def messages_request_body(info: ModelInfo, request: ModelRequest) -> dict[str, Any]:
    """The JSON body for one call, field order as OpenCode sends it."""
    thinking = request.provider_options.get("thinking")
    body: dict[str, Any] = {
        "model": info.api_model_id,
        "max_tokens": _with_thinking_budget(request.max_output_tokens or max_output_tokens(info), thinking, info),
    }
    # With thinking on, Anthropic rejects sampling settings; with both set, newer models reject top_p.
    if not (isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "adaptive")):
        if request.temperature is not None:
            body["temperature"] = request.temperature
        elif request.top_p is not None:
            body["top_p"] = request.top_p
    body.update((key, value) for key, value in request.provider_options.items() if key not in _RESERVED)
    system, messages = system_and_messages(request)
    if system:
        body["system"] = system
    body["messages"] = messages
    if request.tools and request.tool_choice != "none":
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters, "eager_input_streaming": True}
            for t in request.tools
        ]
        body["tool_choice"] = {"type": "any" if request.tool_choice == "required" else "auto"}
    body["stream"] = True
    return body


def _with_thinking_budget(max_tokens: int, thinking: object, info: ModelInfo) -> int:
    """A thinking budget comes on top of the answer's tokens (as the AI SDK sends it), within the model's limit."""
    if not isinstance(thinking, Mapping) or thinking.get("type") != "enabled":
        return max_tokens
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int):
        return max_tokens
    total = max_tokens + budget
    return min(total, info.limits.output) if info.limits.output else total


def system_and_messages(request: ModelRequest) -> tuple[list[Block], list[dict[str, Any]]]:
    """System blocks and alternating user/assistant messages, cache breakpoints placed.

    Each history message's blocks and their JSON are made once, and the messages merged up to the
    breakpoints are carried from the step before (`wire_json`); the messages come back as a `FragmentList`.
    """
    messages = request.messages
    system: list[Block] = [{"type": "text", "text": text} for text in request.system if text]
    lead = 0
    while lead < len(messages) and isinstance(message := messages[lead], SystemModelMessage):
        system.append({"type": "text", "text": message.content})
        lead += 1
    for block in system[:CACHED_SYSTEM_BLOCKS]:
        block["cache_control"] = dict(EPHEMERAL)
    # Empty turns go first (Anthropic rejects them); the breakpoints then land on the last two that remain.
    settled, marked = len(messages), 0
    while settled > lead and marked < CACHED_TAIL_MESSAGES:
        settled -= 1
        marked += bool(_converted_turn(messages[settled])[1])
    closed, joined, last = carried(messages[lead:settled], "anthropic", _no_turns, _add_turns)
    tail = [_marked(turn) for message in messages[settled:] if (turn := _converted_turn(message))[1]]
    items, fragments = list(closed), list(joined)
    for role, blocks, pieces in _merge_roles(([last] if last else []) + tail):
        items.append({"role": role, "content": blocks})
        fragments.append(_message_json(role, pieces))
    return system, FragmentList(items, fragments)


_Turn = tuple[str, list[Block], list[bytes]]
"""A message's role, its blocks, and the JSON of each block."""
_Merged = tuple[list[dict[str, Any]], tuple[bytes, ...], _Turn | None]
"""Messages merged so far: those complete (and their JSON, in pieces: one per request that completed some),
and the last turn, which a next turn of its role joins."""


def _no_turns() -> _Merged:
    return [], (), None


def _add_turns(so_far: _Merged, added: Sequence[ModelMessage]) -> _Merged:
    closed, joined, last = so_far
    turns = [turn for message in added if (turn := _converted_turn(message))[1]]
    merged = _merge_roles(([last] if last else []) + turns)
    if not merged:
        return so_far
    *done, last = merged  # the last turn stays open: the next message may be of its role
    closed = [*closed, *({"role": role, "content": blocks} for role, blocks, _ in done)]
    pieces = [_message_json(role, fragments) for role, _, fragments in done]
    return closed, (*joined, b",".join(pieces)) if pieces else joined, last


def _converted_turn(message: ModelMessage) -> _Turn:
    return converted(message, "anthropic", partial(_encoded_turn, message))


def _encoded_turn(message: ModelMessage) -> _Turn:
    role, blocks = _turn(message)
    return role, blocks, [encode_json(block) for block in blocks]


def _marked(turn: _Turn) -> _Turn:
    """The turn with a cache breakpoint on its last block: a copy, since the kept blocks are shared."""
    role, blocks, fragments = turn
    last = {**blocks[-1], "cache_control": dict(EPHEMERAL)}
    return role, [*blocks[:-1], last], [*fragments[:-1], encode_json(last)]


def _message_json(role: str, blocks: list[bytes]) -> bytes:
    return b'{"role":' + encode_json(role) + b',"content":[' + b",".join(blocks) + b"]}"


def _turn(message: ModelMessage) -> tuple[str, list[Block]]:
    if isinstance(message, SystemModelMessage):  # mid-conversation: Anthropic has no such thing, so the user says it
        return "user", [_text(message.content)] if message.content else []
    if isinstance(message, UserModelMessage):
        return "user", [block for part in message.content if (block := _user_block(part)) is not None]
    if isinstance(message, AssistantModelMessage):
        return "assistant", [block for part in message.content if (block := _assistant_block(part)) is not None]
    return "user", _tool_results(message)


def _user_block(part: TextContent | FileContent) -> Block | None:
    if isinstance(part, TextContent):
        return _text(part.text) if part.text else None
    return file_block(part)


def file_block(part: FileContent) -> Block:
    """An image or document block for a file; other kinds are named in a text block rather than dropped."""
    if part.media_type.startswith("image/"):
        return {"type": "image", "source": _source(part)}
    if part.media_type == "application/pdf":
        return {"type": "document", "source": _source(part)}
    if part.media_type == "text/plain" and (match := _DATA_URL.match(part.data)) and not match.group(2):
        return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": match.group(3)}}
    return _text(f"[Attached {part.media_type}: {part.filename or 'file'}]")


def _assistant_block(part: Any) -> Block | None:
    if isinstance(part, TextContent):
        return _text(part.text) if part.text else None
    if isinstance(part, ReasoningContent):
        return _thinking_block(part)
    if part.type == "tool-call" and not part.provider_executed:
        return {"type": "tool_use", "id": safe_tool_id(part.call_id), "name": part.tool_name, "input": dict(part.input)}
    return None


def _thinking_block(part: ReasoningContent) -> Block | None:
    metadata = (part.provider_metadata or {}).get("anthropic") or {}
    if metadata.get("signature"):
        return {"type": "thinking", "thinking": part.text, "signature": metadata["signature"]}
    if metadata.get("redactedData"):
        return {"type": "redacted_thinking", "data": metadata["redactedData"]}
    return None  # unsigned reasoning (another model's) cannot be replayed as thinking


def _tool_results(message: ToolModelMessage) -> list[Block]:
    return [_tool_result(result) for result in message.content if not result.provider_executed]


def _tool_result(result: ToolResultContent) -> Block:
    output = result.output
    content: str | list[Block] = output.text
    if output.kind == "content" and output.media:
        content = ([_text(output.text)] if output.text else []) + [file_block(media) for media in output.media]
    block: Block = {"type": "tool_result", "tool_use_id": safe_tool_id(result.call_id), "content": content}
    if output.kind == "error":
        block["is_error"] = True
    return block


def safe_tool_id(call_id: str) -> str:
    """Anthropic takes only letters, digits, `_` and `-` in tool ids (ids from other providers may differ)."""
    return _TOOL_ID_UNSAFE.sub("_", call_id)


def _source(part: FileContent) -> dict[str, str]:
    match = _DATA_URL.match(part.data)
    if match:
        return {"type": "base64", "media_type": match.group(1) or part.media_type, "data": match.group(3)}
    return {"type": "url", "url": part.data}


def _text(text: str) -> Block:
    return {"type": "text", "text": text}


def _merge_roles(turns: list[_Turn]) -> list[_Turn]:
    """Consecutive turns of one role become one message (a tool result and the next user text, say)."""
    merged: list[_Turn] = []
    for role, blocks, fragments in turns:
        if merged and merged[-1][0] == role:
            merged[-1][1].extend(blocks)
            merged[-1][2].extend(fragments)
        else:
            merged.append((role, list(blocks), list(fragments)))
    return merged
