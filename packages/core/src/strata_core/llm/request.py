"""What a model is sent: the messages of the conversation, the tools it may call, and the request around them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

from attrs import field, frozen

from strata_core.llm.json_object import JSONObject

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
class SystemModelMessage:
    content: str
    role: Literal["system"] = "system"


@frozen
class UserModelMessage:
    content: tuple[UserContent, ...]
    provider_metadata: JSONObject | None = None
    role: Literal["user"] = "user"


@frozen
class AssistantModelMessage:
    content: tuple[AssistantContent, ...]
    provider_metadata: JSONObject | None = None
    role: Literal["assistant"] = "assistant"


@frozen
class ToolModelMessage:
    content: tuple[ToolResultContent, ...]
    role: Literal["tool"] = "tool"


ModelMessage: TypeAlias = SystemModelMessage | UserModelMessage | AssistantModelMessage | ToolModelMessage


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
