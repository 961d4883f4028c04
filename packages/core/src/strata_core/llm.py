"""The language-model interface: what the core asks of a model, and the events a model streams back.

No wire code lives here. A `LanguageModel` is anything that turns a `ModelRequest` into a stream of
`StreamEvent`s; the wires in strata-providers and the scripted test models implement it.

Contract for implementations:
- `stream()` returns an async context manager; leaving it (normally, on error or on cancel) releases
  everything the stream holds, the HTTP response included.
- Expected failures never raise out of the iterator: they arrive as one final `StreamFailed` event carrying
  a `ModelError`. Only cancellation propagates.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, Protocol, TypeAlias

from attrs import field, frozen

JSONObject: TypeAlias = Mapping[str, Any]

# ---------------------------------------------------------------------------------------------------------
# The model being called


@frozen
class ModelLimits:
    context: int = 0
    """Total context window in tokens; 0 means unknown (overflow is then never detected)."""
    output: int = 0
    """Maximum output tokens; 0 means unknown."""
    input: int | None = None
    """A separate input limit, for providers that state one."""


MediaInToolResults: TypeAlias = Literal["all", "images", "none"]


@frozen
class ModelCapabilities:
    tool_call: bool = True
    reasoning: bool = False
    attachment: bool = False
    """Accepts images and files in user messages."""
    temperature: bool = True
    """Whether a temperature may be sent (OpenCode sends none for config models unless declared)."""
    media_in_tool_results: MediaInToolResults = "none"


@frozen
class ModelInfo:
    """A model as the core sees it: enough to choose prompts, shape history and detect overflow."""

    provider_id: str
    id: str
    api_id: str = ""
    """The provider's own model id (OpenCode's `model.api.id`); defaults to `id`."""
    name: str = ""
    npm: str = "@ai-sdk/openai-compatible"
    """OpenCode's SDK package name; decides the wire and a few per-provider rules."""
    limits: ModelLimits = field(factory=ModelLimits)
    capabilities: ModelCapabilities = field(factory=ModelCapabilities)
    options: JSONObject = field(factory=dict)
    headers: Mapping[str, str] = field(factory=dict)

    @property
    def api_model_id(self) -> str:
        return self.api_id or self.id

    @property
    def ref(self) -> str:
        """`provider/model`, as written in config and on the command line."""
        return f"{self.provider_id}/{self.id}"


# ---------------------------------------------------------------------------------------------------------
# Messages sent to a model (converted from stored history by `history.to_model_messages`)


@frozen
class TextContent:
    text: str
    provider_metadata: JSONObject | None = None
    type: Literal["text"] = "text"


@frozen
class ReasoningContent:
    text: str
    provider_metadata: JSONObject | None = None
    """Carries e.g. Anthropic's `signature` so signed thinking can be replayed."""
    type: Literal["reasoning"] = "reasoning"


@frozen
class FileContent:
    media_type: str
    data: str
    """A `data:` URL or an http(s) URL."""
    filename: str | None = None
    type: Literal["file"] = "file"


@frozen
class ToolCallContent:
    call_id: str
    tool_name: str
    input: JSONObject
    provider_executed: bool = False
    provider_metadata: JSONObject | None = None
    type: Literal["tool-call"] = "tool-call"


@frozen
class ToolOutput:
    """A tool result as the model sees it: plain text, an error text, or text plus media."""

    kind: Literal["text", "error", "content"]
    text: str
    media: tuple[FileContent, ...] = ()


@frozen
class ToolResultContent:
    call_id: str
    tool_name: str
    output: ToolOutput
    provider_executed: bool = False
    type: Literal["tool-result"] = "tool-result"


UserContent: TypeAlias = TextContent | FileContent
AssistantContent: TypeAlias = TextContent | ReasoningContent | ToolCallContent | FileContent


@frozen
class SystemMessage:
    content: str
    role: Literal["system"] = "system"


@frozen
class UserMessage:
    content: tuple[UserContent, ...]
    provider_metadata: JSONObject | None = None
    role: Literal["user"] = "user"


@frozen
class AssistantMessage:
    content: tuple[AssistantContent, ...]
    provider_metadata: JSONObject | None = None
    role: Literal["assistant"] = "assistant"


@frozen
class ToolMessage:
    content: tuple[ToolResultContent, ...]
    role: Literal["tool"] = "tool"


ModelMessage: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage


# ---------------------------------------------------------------------------------------------------------
# The request


@frozen
class ToolDefinition:
    name: str
    description: str
    parameters: JSONObject
    """JSON Schema of the arguments (an object schema)."""


ToolChoice: TypeAlias = Literal["auto", "required", "none"]


@frozen
class ModelRequest:
    """Everything one model call needs. Cancellation (the abort signal) is anyio's own."""

    system: tuple[str, ...]
    """System messages; OpenCode sends exactly one string, assembled by SystemPrompt."""
    messages: tuple[ModelMessage, ...]
    tools: tuple[ToolDefinition, ...] = ()
    tool_choice: ToolChoice | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    provider_options: JSONObject = field(factory=dict)
    headers: Mapping[str, str] = field(factory=dict)
    session_id: str | None = None
    small: bool = False
    """A small-model call (title): retried, cheaper provider options."""


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

    @property
    def total(self) -> int:
        if self.total_tokens is not None:
            return self.total_tokens
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens


class ModelError(Exception):
    """A failure talking to a model. Subclasses say what kind; `retryable` says whether to try again."""

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        """Seconds to wait before retrying, when the provider said so."""
        self.body = body

    @property
    def kind(self) -> str:
        return type(self).__name__


class AuthenticationError(ModelError):
    """The provider refused the credentials (401/403)."""


class RateLimitedError(ModelError):
    """Too many requests (429), or an overloaded provider (529)."""

    retryable = True


class ContextOverflowError(ModelError):
    """The request does not fit the model's context window; the loop compacts instead of failing."""


class ServerError(ModelError):
    """The provider failed (5xx)."""

    retryable = True


class TransportError(ModelError):
    """The connection failed, timed out, or was cut mid-stream."""

    retryable = True


class BadResponseError(ModelError):
    """The provider answered with something that is not a valid stream (a malformed chunk, a bad status)."""


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


class LanguageModel(Protocol):
    """One model, ready to be called."""

    @property
    def info(self) -> ModelInfo: ...

    def stream(self, request: ModelRequest) -> AbstractAsyncContextManager[AsyncIterator[StreamEvent]]:
        """Open a streaming call. Iterate the yielded iterator for events; exiting closes the call."""
        ...


class ModelResolver(Protocol):
    """Finds models by `provider/model` reference (implemented by strata-providers' catalogue)."""

    def resolve(self, ref: str) -> LanguageModel:
        """The model for `provider/model`; raises `ModelNotFoundError` with a helpful message otherwise."""
        ...

    def default_model(self) -> LanguageModel:
        """The configured `model`, or a clear `ModelNotFoundError` saying how to configure one."""
        ...

    def small_model(self, provider_id: str) -> LanguageModel | None:
        """The model for small calls (titles): `small_model` config, else a provider default, else None."""
        ...


class ModelNotFoundError(Exception):
    """No such model, or no model configured; the message says how to configure one."""
