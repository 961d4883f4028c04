"""Stored messages and their parts, with OpenCode's fields.

Parts are mutable (`define`): the processor grows a text part delta by delta and moves a tool part through
its states, persisting each change. Field names are Python's; the JSON names (OpenCode's export shape,
e.g. `sessionID`, `callID`) are given by `json=` metadata and applied by `serialization.converter`.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from attrs import define, field


def json_name(name: str) -> dict[str, str]:
    """Field metadata naming the key this field has in OpenCode's JSON."""
    return {"json": name}


# ---------------------------------------------------------------------------------------------------------
# Small values


@define
class Tokens:
    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total: int | None = None

    @property
    def count(self) -> int:
        """What the overflow test compares: the total if the provider gave one, else the sum."""
        if self.total:
            return self.total
        return self.input + self.output + self.cache_read + self.cache_write


@define
class ModelRef:
    provider_id: str = field(metadata=json_name("providerID"))
    model_id: str = field(metadata=json_name("modelID"))
    variant: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.provider_id}/{self.model_id}"


@define
class PathInfo:
    cwd: str
    root: str


@define
class MessageTime:
    created: int
    completed: int | None = None


@define
class PartTime:
    start: int
    end: int | None = None


@define
class MessageError:
    """An error recorded on an assistant message, named as OpenCode names them (`MessageAbortedError`...)."""

    name: str
    message: str
    data: dict[str, Any] = field(factory=dict)


ABORTED_ERROR = "MessageAbortedError"
ABORTED_MESSAGE = "Aborted"
"""An aborted turn's error message, as OpenCode stores it when its session is cancelled."""
CONTEXT_OVERFLOW_ERROR = "ContextOverflowError"
STRUCTURED_OUTPUT_ERROR = "StructuredOutputError"
UNKNOWN_ERROR = "UnknownError"
"""OpenCode's name for any other failure (a limit of the turn reached, a crash)."""


@define
class OutputFormat:
    """`{type: "text"}` or `{type: "json_schema", schema, retryCount}`."""

    type: Literal["text", "json_schema"] = "text"
    schema: dict[str, Any] | None = None
    retry_count: int = field(default=2, metadata=json_name("retryCount"))


# ---------------------------------------------------------------------------------------------------------
# Parts


@define(kw_only=True)
class _PartBase:
    id: str
    session_id: str = field(metadata=json_name("sessionID"))
    message_id: str = field(metadata=json_name("messageID"))


@define(kw_only=True)
class TextPart(_PartBase):
    text: str = ""
    synthetic: bool = False
    ignored: bool = False
    time: PartTime | None = None
    metadata: dict[str, Any] | None = None
    type: Literal["text"] = "text"


@define(kw_only=True)
class ReasoningPart(_PartBase):
    text: str = ""
    time: PartTime | None = None
    metadata: dict[str, Any] | None = None
    type: Literal["reasoning"] = "reasoning"


@define(kw_only=True)
class FilePart(_PartBase):
    mime: str
    url: str
    filename: str | None = None
    source: dict[str, Any] | None = None
    type: Literal["file"] = "file"


@define(kw_only=True)
class ToolStatePending:
    input: dict[str, Any] = field(factory=dict)
    raw: str = ""
    status: Literal["pending"] = "pending"


@define(kw_only=True)
class ToolStateRunning:
    input: dict[str, Any]
    time: PartTime
    title: str | None = None
    metadata: dict[str, Any] | None = None
    status: Literal["running"] = "running"


@define(kw_only=True)
class ToolCompletedTime:
    start: int
    end: int
    compacted: int | None = None


@define(kw_only=True)
class ToolStateCompleted:
    input: dict[str, Any]
    output: str
    title: str
    metadata: dict[str, Any]
    time: ToolCompletedTime
    attachments: list[FilePart] | None = None
    status: Literal["completed"] = "completed"


@define(kw_only=True)
class ToolStateError:
    input: dict[str, Any]
    error: str
    time: PartTime
    metadata: dict[str, Any] | None = None
    status: Literal["error"] = "error"


ToolState: TypeAlias = ToolStatePending | ToolStateRunning | ToolStateCompleted | ToolStateError


@define(kw_only=True)
class ToolPart(_PartBase):
    call_id: str = field(metadata=json_name("callID"))
    tool: str
    state: ToolState
    metadata: dict[str, Any] | None = None
    """Part-level metadata, e.g. `providerExecuted`."""
    type: Literal["tool"] = "tool"

    @property
    def provider_executed(self) -> bool:
        return bool(self.metadata and self.metadata.get("providerExecuted"))

    @property
    def is_orphaned_interrupt(self) -> bool:
        """An error left behind by an interrupted run; it does not keep the loop going."""
        state = self.state
        return isinstance(state, ToolStateError) and bool(state.metadata and state.metadata.get("interrupted"))


@define(kw_only=True)
class StepStartPart(_PartBase):
    snapshot: str | None = None
    type: Literal["step-start"] = "step-start"


@define(kw_only=True)
class StepFinishPart(_PartBase):
    reason: str
    cost: float = 0.0
    tokens: Tokens = field(factory=Tokens)
    snapshot: str | None = None
    type: Literal["step-finish"] = "step-finish"


@define(kw_only=True)
class PatchPart(_PartBase):
    hash: str
    files: list[str] = field(factory=list)
    type: Literal["patch"] = "patch"


@define(kw_only=True)
class AgentPart(_PartBase):
    name: str
    source: dict[str, Any] | None = None
    type: Literal["agent"] = "agent"


@define(kw_only=True)
class RetryPart(_PartBase):
    attempt: int
    error: MessageError
    time: MessageTime
    type: Literal["retry"] = "retry"


@define(kw_only=True)
class CompactionPart(_PartBase):
    auto: bool
    overflow: bool | None = None
    tail_start_id: str | None = None
    type: Literal["compaction"] = "compaction"


@define(kw_only=True)
class SubtaskPart(_PartBase):
    prompt: str
    description: str
    agent: str
    model: ModelRef | None = None
    command: str | None = None
    type: Literal["subtask"] = "subtask"


Part: TypeAlias = (
    TextPart
    | ReasoningPart
    | FilePart
    | ToolPart
    | StepStartPart
    | StepFinishPart
    | PatchPart
    | AgentPart
    | RetryPart
    | CompactionPart
    | SubtaskPart
)


# ---------------------------------------------------------------------------------------------------------
# Messages


@define(kw_only=True)
class UserMessage:
    id: str
    session_id: str = field(metadata=json_name("sessionID"))
    time: MessageTime
    agent: str
    model: ModelRef
    format: OutputFormat | None = None
    system: str | None = None
    tools: dict[str, bool] | None = None
    summary: dict[str, Any] | None = None
    role: Literal["user"] = "user"


@define(kw_only=True)
class AssistantMessage:
    id: str
    session_id: str = field(metadata=json_name("sessionID"))
    parent_id: str = field(metadata=json_name("parentID"))
    time: MessageTime
    model_id: str = field(metadata=json_name("modelID"))
    provider_id: str = field(metadata=json_name("providerID"))
    mode: str
    agent: str
    path: PathInfo
    cost: float = 0.0
    tokens: Tokens = field(factory=Tokens)
    error: MessageError | None = None
    summary: bool = False
    structured: Any = None
    variant: str | None = None
    finish: str | None = None
    role: Literal["assistant"] = "assistant"

    @property
    def model_ref(self) -> str:
        return f"{self.provider_id}/{self.model_id}"

    @classmethod
    def answering(
        cls,
        parent: UserMessage,
        agent: str,
        model: ModelRef,
        path: PathInfo,
        message_id: str,
        created: int,
        *,
        summary: bool = False,
    ) -> AssistantMessage:
        """An empty assistant message answering `parent`, as a step (or a subtask, or a summary) starts one."""
        return cls(
            id=message_id,
            session_id=parent.session_id,
            parent_id=parent.id,
            time=MessageTime(created),
            model_id=model.model_id,
            provider_id=model.provider_id,
            mode=agent,
            agent=agent,
            variant=model.variant,
            path=path,
            summary=summary,
        )


Message: TypeAlias = UserMessage | AssistantMessage


@define
class MessageWithParts:
    """A message and its parts in order: the unit history, the store and export work with."""

    info: Message
    parts: list[Part] = field(factory=list)

    @property
    def text(self) -> str:
        """What the message says in words: its text parts, less the synthetic ones, joined by newlines."""
        return "\n".join(part.text for part in self.parts if isinstance(part, TextPart) and not part.synthetic)
