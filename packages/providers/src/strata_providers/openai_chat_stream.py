"""Decoding a chat-completions stream: deltas of choice 0, tool calls assembled by index, usage at the end."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from attrs import define, field
from httpx_sse import ServerSentEvent

from strata_core.llm import Finish, FinishReason, StreamEvent, ToolInputDelta, ToolInputStart, TransportError, Usage
from strata_providers.errors import bad_chunk, error_from_payload, parse_chunk
from strata_providers.stream_parts import ImplicitParts, empty_stream, tool_call_events

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content-filter",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
}


@define
class _ToolCallBuffer:
    call_id: str
    name: str
    arguments: list[str] = field(factory=list)


@define
class ChatStreamDecoder:
    """Chat-completion chunks to stream events. The finish waits for `[DONE]` because usage comes last."""

    finished: bool = False
    _parts: ImplicitParts = field(factory=ImplicitParts)
    _tools: dict[int, _ToolCallBuffer] = field(factory=dict)
    _finish_reason: FinishReason | None = None
    _usage: Mapping[str, Any] | None = None
    _choices_seen: bool = False
    _null_choices: bool = False
    _produced: bool = False

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]:
        data = event.data
        if data == "[DONE]":
            return self._finish()
        if not data or data.isspace():
            return []
        chunk = parse_chunk(data)  # JSON objects are dicts: `isinstance(..., dict)` below is the cheap check
        if "error" in chunk:
            raise error_from_payload(chunk["error"])
        usage = chunk.get("usage")
        if usage is not None and isinstance(usage, dict):
            self._usage = usage
        choices = chunk.get("choices") or ()
        if not choices:
            self._null_choices = self._null_choices or ("choices" in chunk and chunk["choices"] is None)
            return []
        self._choices_seen = True
        choice = choices[0]
        if not isinstance(choice, dict):
            raise bad_chunk("choices[0] is not an object", data)
        events = self._delta(choice.get("delta") or {}, data)
        if events:
            self._produced = True
        reason = choice.get("finish_reason")
        if reason:
            self._finish_reason = _FINISH_REASONS.get(str(reason), "other")
        return events

    def end_of_stream(self) -> list[StreamEvent]:
        if self._finish_reason is not None:
            return self._finish()  # some servers close after the finish chunk without sending `[DONE]`
        raise TransportError("the stream ended before the model finished (no finish_reason, no [DONE])")

    def _delta(self, delta: Mapping[str, Any], data: str) -> list[StreamEvent]:
        content = delta.get("content")
        if len(delta) == 1:  # most chunks: one piece of text, or of one tool call's arguments
            if isinstance(content, str) and content:
                return self._parts.text(content)
            calls = delta.get("tool_calls")
            if calls and type(calls) is list and len(calls) == 1 and type(calls[0]) is dict:
                return self._tool_call_delta(calls[0], data)
        events: list[StreamEvent] = []
        # `reasoning_content` (DeepSeek, vLLM, OpenCode's replay) or `reasoning` (OpenRouter, Ollama).
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            events += self._parts.reasoning(reasoning)
        if isinstance(content, str) and content:
            events += self._parts.text(content)
        for call in delta.get("tool_calls") or ():
            if not isinstance(call, dict):
                raise bad_chunk("a tool_calls entry is not an object", data)
            events += self._tool_call_delta(call, data)
        return events

    def _tool_call_delta(self, call: Mapping[str, Any], data: str) -> list[StreamEvent]:
        index = call.get("index", len(self._tools))
        function = call.get("function") or {}
        buffer = self._tools.get(index)
        arguments = function.get("arguments")
        if buffer is not None and arguments and type(arguments) is str:  # the common fragment, kept cheap
            buffer.arguments.append(arguments)
            return [ToolInputDelta(buffer.call_id, arguments)]
        events: list[StreamEvent] = []
        if buffer is None:
            name = function.get("name")
            if not isinstance(name, str) or not name:
                raise bad_chunk(f"tool call {index} starts without a function name", data)
            # Some local servers omit the id; the call still needs one to pair its result with.
            buffer = _ToolCallBuffer(str(call.get("id") or f"call_{index}"), name)
            self._tools[index] = buffer
            events += self._parts.close()
            events.append(ToolInputStart(buffer.call_id, name))
        if arguments:
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)  # a few servers send the arguments as an object
            buffer.arguments.append(arguments)
            events.append(ToolInputDelta(buffer.call_id, arguments))
        return events

    def _finish(self) -> list[StreamEvent]:
        self.finished = True
        if not self._produced:
            if not self._choices_seen:
                raise empty_stream("null-choices" if self._null_choices else "done-only")
            if self._finish_reason == "length":
                raise empty_stream("length")
        events = self._parts.close()
        for index in sorted(self._tools):
            buffer = self._tools[index]
            events += tool_call_events(buffer.call_id, buffer.name, "".join(buffer.arguments))
        reason = self._finish_reason or ("tool-calls" if self._tools else "unknown")
        events.append(Finish(reason, chat_usage(self._usage or {})))
        return events


def chat_usage(usage: Mapping[str, Any]) -> Usage:
    """OpenAI usage in OpenCode's accounting: input without cached tokens, output without reasoning."""
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    cached = _count(_details(usage, "prompt_tokens_details").get("cached_tokens"))
    reasoning = _count(_details(usage, "completion_tokens_details").get("reasoning_tokens"))
    total = usage.get("total_tokens")
    cost = usage.get("cost")  # OpenRouter's own figure, in USD
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=max(0, completion - reasoning),
        reasoning_tokens=reasoning,
        cache_read_tokens=cached,
        total_tokens=_count(total) if total is not None else None,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0 else None,
    )


def _details(usage: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = usage.get(key)
    return value if isinstance(value, Mapping) else {}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
