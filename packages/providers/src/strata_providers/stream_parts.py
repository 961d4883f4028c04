"""Building blocks the stream decoders share: implicit text/reasoning parts and finished tool calls."""

from __future__ import annotations

from typing import Literal

from attrs import define

from strata_core import json_text
from strata_core.llm import (
    BadResponseError,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputEnd,
)

EmptyStream = Literal["done-only", "null-choices", "stop-only", "length"]
_EMPTY_STREAM_MESSAGES: dict[EmptyStream, str] = {
    "done-only": "the stream ended with [DONE] before a single choice arrived: the server sent no answer",
    "null-choices": 'every chunk had "choices": null: the server sent no answer',
    "stop-only": "the stream held only message_stop (no message_start, no content): the server sent no answer",
    "length": (
        'the model stopped at its output token limit (finish reason "length") before writing anything; '
        "raise the model's limit.output in the config, or shorten the request"
    ),
}


def empty_stream(kind: EmptyStream) -> BadResponseError:
    """A stream that finished without producing anything: a failure with its own message, not an empty answer."""
    return BadResponseError(_EMPTY_STREAM_MESSAGES[kind])


def tool_call_events(call_id: str, tool_name: str, raw_input: str) -> list[StreamEvent]:
    """The end of a tool call's input and the call itself, its arguments parsed (or the parse error kept)."""
    arguments, error = json_text.tool_arguments(raw_input)
    return [
        ToolInputEnd(call_id),
        ToolCall(call_id=call_id, tool_name=tool_name, input=arguments, raw_input=raw_input, parse_error=error),
    ]


@define
class ImplicitParts:
    """Text and reasoning parts for wires that only send deltas: a part opens at its first delta and
    closes when the other kind starts, a tool call starts, or the stream ends."""

    _text_id: str | None = None
    _reasoning_id: str | None = None
    _count: int = 0

    def text(self, delta: str) -> list[StreamEvent]:
        if self._text_id is not None and self._reasoning_id is None:  # the common case, kept cheap
            return [TextDelta(self._text_id, delta)]
        events = self._close_reasoning()
        if self._text_id is None:
            self._text_id = self._next_id("text")
            events.append(TextStart(self._text_id))
        events.append(TextDelta(self._text_id, delta))
        return events

    def reasoning(self, delta: str) -> list[StreamEvent]:
        events = self._close_text()
        if self._reasoning_id is None:
            self._reasoning_id = self._next_id("reasoning")
            events.append(ReasoningStart(self._reasoning_id))
        events.append(ReasoningDelta(self._reasoning_id, delta))
        return events

    def close(self) -> list[StreamEvent]:
        """Close whatever is open (before a tool call, or at the end of the stream)."""
        return self._close_reasoning() + self._close_text()

    def _close_text(self) -> list[StreamEvent]:
        if self._text_id is None:
            return []
        event = TextEnd(self._text_id)
        self._text_id = None
        return [event]

    def _close_reasoning(self) -> list[StreamEvent]:
        if self._reasoning_id is None:
            return []
        event = ReasoningEnd(self._reasoning_id)
        self._reasoning_id = None
        return [event]

    def _next_id(self, kind: str) -> str:
        self._count += 1
        return f"{kind}-{self._count}"
