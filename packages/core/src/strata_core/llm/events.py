"""What a model streams back: text, reasoning and tool-call events, usage, retries, the finish and failures."""

from __future__ import annotations

from typing import Literal, TypeAlias

from attrs import field, frozen

from strata_core.llm.errors import ModelError
from strata_core.llm.json_object import JSONObject

# ---------------------------------------------------------------------------------------------------------
# Usage and errors


FinishReason: TypeAlias = Literal["stop", "length", "tool-calls", "content-filter", "error", "other", "unknown"]


@frozen
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    total_tokens: int | None = None
    cost: float | None = None
    """USD the provider says the call cost (OpenRouter's `usage.cost`); None when it did not say."""

    @property
    def total(self) -> int:
        if self.total_tokens is not None:
            return self.total_tokens
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens


# ---------------------------------------------------------------------------------------------------------
# Stream events


@frozen
class TextStart:
    id: str
    type: Literal["text-start"] = "text-start"


@frozen
class TextDelta:
    id: str
    text: str
    type: Literal["text-delta"] = "text-delta"


@frozen
class TextEnd:
    id: str
    provider_metadata: JSONObject | None = None
    type: Literal["text-end"] = "text-end"


@frozen
class ReasoningStart:
    id: str
    type: Literal["reasoning-start"] = "reasoning-start"


@frozen
class ReasoningDelta:
    id: str
    text: str
    type: Literal["reasoning-delta"] = "reasoning-delta"


@frozen
class ReasoningEnd:
    id: str
    provider_metadata: JSONObject | None = None
    type: Literal["reasoning-end"] = "reasoning-end"


@frozen
class ToolInputStart:
    call_id: str
    tool_name: str
    type: Literal["tool-input-start"] = "tool-input-start"


@frozen
class ToolInputDelta:
    call_id: str
    delta: str
    type: Literal["tool-input-delta"] = "tool-input-delta"


@frozen
class ToolInputEnd:
    call_id: str
    type: Literal["tool-input-end"] = "tool-input-end"


@frozen
class ToolCall:
    """A complete tool call. `input` is the parsed arguments, or None with `parse_error` set."""

    call_id: str
    tool_name: str
    input: JSONObject | None
    raw_input: str
    parse_error: str | None = None
    provider_metadata: JSONObject | None = None
    type: Literal["tool-call"] = "tool-call"


@frozen
class Finish:
    reason: FinishReason
    usage: Usage = field(factory=Usage)
    provider_metadata: JSONObject | None = None
    type: Literal["finish"] = "finish"


@frozen
class RetryScheduled:
    """The wire will try again after `delay` seconds; nothing has streamed yet."""

    attempt: int
    delay: float
    error: ModelError
    type: Literal["retry"] = "retry"


@frozen
class StreamFailed:
    """The stream ended with an error. Always the last event."""

    error: ModelError
    type: Literal["error"] = "error"


StreamEvent: TypeAlias = (
    TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ToolInputStart
    | ToolInputDelta
    | ToolInputEnd
    | ToolCall
    | Finish
    | RetryScheduled
    | StreamFailed
)
