"""Decoding an Anthropic Messages stream: content blocks by index, usage from start and delta, stop reason."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from attrs import define, field
from httpx_sse import ServerSentEvent

from strata_core.llm import (
    Finish,
    FinishReason,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolInputDelta,
    ToolInputStart,
    TransportError,
    Usage,
)
from strata_providers.errors import bad_chunk, error_from_payload, parse_chunk
from strata_providers.stream_parts import empty_stream, tool_call_events

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
}
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")

BlockKind = Literal["text", "thinking", "redacted_thinking", "tool_use", "other"]


@define
class _Block:
    kind: BlockKind
    id: str
    name: str = ""
    input: list[str] = field(factory=list)
    signature: str = ""
    redacted: str = ""
    initial_input: Any = None


@define
class MessagesStreamDecoder:
    """Messages SSE events to stream events; `message_stop` ends the stream."""

    finished: bool = False
    _blocks: dict[int, _Block] = field(factory=dict)
    _usage: dict[str, int] = field(factory=dict)
    _stop_reason: str | None = None
    _started: bool = False
    _produced: bool = False

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]:
        text = event.data
        if not text or text.isspace():
            return []
        data = parse_chunk(text)
        kind = data.get("type") or event.event
        if kind == "content_block_delta":  # by far the most frequent: first
            events = self._block_delta(data)
            if not self._produced:
                self._produced = _has_content(events)
            return events
        if kind == "content_block_start":
            events = self._block_start(data)
            if not self._produced:
                self._produced = _has_content(events)
            return events
        if kind == "content_block_stop":
            return self._block_stop(data)
        if kind == "message_start":
            self._started = True
            self._add_usage((data.get("message") or {}).get("usage"))
        elif kind == "message_delta":
            self._stop_reason = (data.get("delta") or {}).get("stop_reason") or self._stop_reason
            self._add_usage(data.get("usage"))
        elif kind == "message_stop":
            return self._finish()
        elif kind == "error":
            raise error_from_payload(data.get("error") or data)
        return []  # ping, and event types newer than this decoder

    def end_of_stream(self) -> list[StreamEvent]:
        raise TransportError("the stream ended before the model finished (no message_stop)")

    def _block_start(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        index = _index(data)
        block = data.get("content_block")
        if not isinstance(block, Mapping):
            raise bad_chunk("content_block_start without a content_block", json.dumps(data))
        kind = block.get("type")
        if kind == "text":
            self._blocks[index] = _Block("text", f"text-{index}")
            return [TextStart(f"text-{index}"), *self._text(index, block.get("text"))]
        if kind in ("thinking", "redacted_thinking"):
            self._blocks[index] = _Block(kind, f"reasoning-{index}", redacted=str(block.get("data") or ""))
            return [ReasoningStart(f"reasoning-{index}"), *self._thinking(index, block.get("thinking"))]
        if kind == "tool_use":
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                raise bad_chunk("tool_use block without an id and a name", json.dumps(data))
            self._blocks[index] = _Block("tool_use", call_id, name, initial_input=block.get("input"))
            return [ToolInputStart(call_id, name)]
        self._blocks[index] = _Block("other", str(index))  # server tools, citations: not Strata's to run
        return []

    def _block_delta(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        index = _index(data)
        delta = data.get("delta") or {}
        block = self._blocks.get(index)
        if block is None:
            raise bad_chunk(f"content_block_delta for block {index}, which never started", json.dumps(data))
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            if not isinstance(text, str) or not text:
                return []
            return [TextDelta(block.id if block.kind == "text" else f"text-{index}", text)]  # the id made once
        if kind == "thinking_delta":
            return self._thinking(index, delta.get("thinking"))
        if kind == "signature_delta":
            block.signature += str(delta.get("signature") or "")
        elif kind == "input_json_delta":
            partial = str(delta.get("partial_json") or "")
            if partial:
                block.input.append(partial)
                return [ToolInputDelta(block.id, partial)]
        return []

    def _block_stop(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        block = self._blocks.pop(_index(data), None)
        if block is None or block.kind == "other":
            return []
        if block.kind == "text":
            return [TextEnd(block.id)]
        if block.kind == "tool_use":
            raw = "".join(block.input)
            if not raw and block.initial_input:
                raw = json.dumps(block.initial_input)  # a complete input sent in the start event
            return tool_call_events(block.id, block.name, raw)
        metadata = {"signature": block.signature} if block.signature else {"redactedData": block.redacted}
        return [ReasoningEnd(block.id, provider_metadata={"anthropic": metadata})]

    def _text(self, index: int, text: object) -> list[StreamEvent]:
        return [TextDelta(f"text-{index}", text)] if isinstance(text, str) and text else []

    def _thinking(self, index: int, text: object) -> list[StreamEvent]:
        return [ReasoningDelta(f"reasoning-{index}", text)] if isinstance(text, str) and text else []

    def _add_usage(self, usage: object) -> None:
        if isinstance(usage, Mapping):
            for key in _USAGE_KEYS:
                value = usage.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    self._usage[key] = value

    def _finish(self) -> list[StreamEvent]:
        self.finished = True
        if not self._started and not self._produced:
            raise empty_stream("stop-only")
        if not self._produced and _STOP_REASONS.get(self._stop_reason or "") == "length":
            raise empty_stream("length")
        reason = _STOP_REASONS.get(self._stop_reason, "other") if self._stop_reason else "unknown"
        usage = Usage(
            input_tokens=self._usage.get("input_tokens", 0),
            output_tokens=self._usage.get("output_tokens", 0),
            cache_read_tokens=self._usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=self._usage.get("cache_creation_input_tokens", 0),
        )
        return [Finish(reason, usage)]


def _has_content(events: list[StreamEvent]) -> bool:
    return any(isinstance(event, TextDelta | ReasoningDelta | ToolInputStart) for event in events)


def _index(data: Mapping[str, Any]) -> int:
    index = data.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        raise bad_chunk("content block event without an integer index", json.dumps(data))
    return index
