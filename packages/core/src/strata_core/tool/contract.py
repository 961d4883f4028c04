"""The tool contract: a name, a description, a parameter schema and an async `execute`.

Expected failures are values: a tool raises `ToolFailure` (or anything else) and the runner turns it into
an error result the model can act on. Only cancellation propagates. Permission outcomes
(`permission.PermissionError_`) propagate out of `execute` so the runner can also stop the turn on a
rejection, as OpenCode does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from attrs import define, field, frozen

from strata_core.llm import ModelInfo
from strata_core.message import MessageWithParts
from strata_core.permission.rules import Ruleset

JSONSchema = Mapping[str, Any]


@frozen
class Attachment:
    """A file a tool returns to the model (an image it read, a PDF, a fetched picture)."""

    mime: str
    url: str
    """A `data:` URL."""
    filename: str | None = None


@frozen
class ToolResult:
    output: str
    title: str = ""
    metadata: Mapping[str, Any] = field(factory=dict)
    attachments: tuple[Attachment, ...] = ()


class ToolFailure(Exception):
    """An expected failure whose message is shown to the model as the tool's error result."""


@frozen
class ToolTarget:
    """Who a tool set or description is for: the calling agent (its effective rules) and the model."""

    agent_name: str
    ruleset: Ruleset
    model: ModelInfo


AskPermission = Callable[[str, Sequence[str], Sequence[str], Mapping[str, Any]], Awaitable[None]]
"""`ask(permission, patterns, always, metadata)`: returns when allowed, raises a `PermissionError_` otherwise."""

MetadataUpdate = Callable[[str | None, Mapping[str, Any]], None]
"""`update(title, metadata)`: live progress for a running tool (bash output so far, a subagent's session)."""


def _ignore_metadata(title: str | None, metadata: Mapping[str, Any]) -> None:
    return None


async def _allow_everything(
    permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
) -> None:
    return None


@define(kw_only=True)
class ToolContext:
    """What a running tool knows about its call and may ask of the session."""

    session_id: str
    message_id: str
    call_id: str
    agent: str
    ruleset: Ruleset
    """The effective rules for this call: the agent's, then the session's."""
    directory: Path
    """The session's working directory; relative paths resolve against it."""
    worktree: Path
    """The project root (git top level, or `/` outside git); outside it needs `external_directory`."""
    model: ModelInfo | None = None
    messages: Sequence[MessageWithParts] = ()
    """The session history so far (the read tool uses it to avoid re-sending instructions)."""
    ask: AskPermission = _allow_everything
    update_metadata: MetadataUpdate = _ignore_metadata
    extra: Mapping[str, Any] = field(factory=dict)
    """Caller flags, e.g. `bypass_agent_check` for a task the user started directly."""


class Tool(Protocol):
    """A built-in or custom tool."""

    @property
    def name(self) -> str: ...

    def parameters(self) -> JSONSchema:
        """JSON Schema of the arguments, exactly as sent to the model."""
        ...

    async def description(self, target: ToolTarget) -> str:
        """The description for this caller (task and skill list what the agent may use)."""
        ...

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult: ...
