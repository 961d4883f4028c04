"""The tool contract: a name, a description, a parameter schema, a permission and an async `execute`.

Two ways to give a session a tool of your own:

- decorate a typed function with `strata_core.tool.tool` (`tool/function_tool.py`): the schema comes from
  its signature and docstring, its return value becomes the result;
- or write a class that satisfies `Tool` below, for full control (a description per caller, a schema of
  your own, patterns per call).

Either way the runner (`tool/runner.py`) does the rest for every call: it checks the arguments against
`parameters()`, asks `permission(args)` of the agent's rules (allow runs, deny refuses with OpenCode's
message, ask goes to the runtime's approver, which may refuse), runs `execute`, and
keeps the output small.

Expected failures are values: a tool raises `ToolFailure` (or anything else) and the runner turns it into
an error result the model can act on. Only cancellation propagates. Permission outcomes
(`permission.PermissionRefusedError`) propagate out of `execute` so the runner can also stop the turn on a
rejection, as OpenCode does.

A tool that shows a secret file's content (a `.env` file the user let it read) names the file in
`ToolResult.secret_files`: the model sees the content now, the session keeps a placeholder.

A tool that asks for itself, with finer patterns than one per call (the built-ins: bash asks per command,
edit per file, read also for `.env` files), returns `None` from `permission` and calls `ctx.ask` in
`execute`, so nobody is asked twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from attrs import define, field, frozen

from strata_core.errors import StrataError
from strata_core.llm import ModelInfo
from strata_core.message import MessageWithParts
from strata_core.permission.rules import NO_RESPONDER, NoResponderError, Ruleset

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
    """What a call gives back: `output` is what the model reads; `title` and `metadata` are for renderers and
    the store (`metadata["truncated"]` says the tool cut its own output); `attachments` go to the model too."""

    output: str
    title: str = ""
    metadata: Mapping[str, Any] = field(factory=dict)
    attachments: tuple[Attachment, ...] = ()
    secret_files: tuple[str, ...] = ()
    """The secret files (`.env`-style, shown with the user's consent) whose content `output` and
    `attachments` hold, as the title names them. Such an output reaches the model in this process only: the
    store, the bus and exports get a placeholder (`strata_core.secret_outputs`), so `metadata` must hold none
    of the content (the built-ins put the placeholder in `preview`, `display` and diffs). The runner does not
    truncate such an output (truncation would save all of it to disk): the tool keeps it small itself."""


class ToolFailure(StrataError):
    """An expected failure whose message is shown to the model as the tool's error result."""


@frozen
class ToolTarget:
    """Who a tool set or description is for: the calling agent (its effective rules) and the model."""

    agent_name: str
    ruleset: Ruleset
    model: ModelInfo


AskPermission = Callable[[str, Sequence[str], Sequence[str], Mapping[str, Any]], Awaitable[None]]
"""`ask(permission, patterns, always, metadata)`: returns when allowed, raises a `PermissionRefusedError` otherwise."""

MetadataUpdate = Callable[[str | None, Mapping[str, Any]], None]
"""`update(title, metadata)`: live progress for a running tool (bash output so far, a subagent's session)."""


def _ignore_metadata(title: str | None, metadata: Mapping[str, Any]) -> None:
    return None


AbortResult = Callable[["ToolResult"], None]
"""`end_on_abort(result)`: the result a cancelled call ends with, for a tool that answers a cancellation itself."""


def _no_abort_result(result: ToolResult) -> None:
    return None


async def _nobody_to_answer(
    permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
) -> None:
    # Silence is never a yes: a context built without a responder refuses every ask.
    raise NoResponderError(permission, patterns, reason=NO_RESPONDER)


async def approve_everything(
    permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
) -> None:
    """A responder that says yes to every ask: for a caller that has decided already (the user attached
    the file the read tool reads) or a test about something else."""
    return None


@frozen
class ToolPermission:
    """What one call of a tool needs permission for, as OpenCode's tools ask it (reference §12.10)."""

    key: str
    """The permission rules are written against (`"permission": {"<key>": "ask"}`); usually the tool's name."""
    patterns: tuple[str, ...] = ("*",)
    """What this call touches, matched against the rules' patterns (a path, a URL); `*` when nothing finer."""
    always: tuple[str, ...] = ("*",)
    """What an "always" answer approves for the rest of the session."""
    metadata: Mapping[str, Any] = field(factory=dict)
    """Shown to the person deciding (the call's input, for instance)."""


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
    ask: AskPermission = _nobody_to_answer
    """Who decides an ask: the runtime's permission flow. Without one, every ask is refused (`NoResponderError`)."""
    update_metadata: MetadataUpdate = _ignore_metadata
    end_on_abort: AbortResult = _no_abort_result
    """Called by a tool that answers the turn's cancellation itself (bash: the output so far and `User aborted
    the command`, as OpenCode's shell tool does) with the result its call ends with, completed; a call without
    one is stored interrupted (`Tool execution aborted`)."""
    extra: Mapping[str, Any] = field(factory=dict)
    """Caller flags, e.g. `bypass_agent_check` for a task the user started directly."""


class Tool(Protocol):
    """A built-in or custom tool: what the registry offers and the runner runs.

    `strata_core.tool.tool` makes one from a typed function; implement this protocol directly for full
    control. `parameters()` is the JSON Schema the runner checks arguments against before `execute` sees
    them; `permission(args)` is what the runner asks before it runs them.
    """

    @property
    def name(self) -> str: ...

    def parameters(self) -> JSONSchema:
        """JSON Schema of the arguments, exactly as sent to the model."""
        ...

    async def description(self, target: ToolTarget) -> str:
        """The description for this caller (task and skill list what the agent may use)."""
        ...

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        """What the runner asks before `execute` runs with these (valid) arguments.

        `None` means the runner asks nothing: the tool asks for itself through `ctx.ask` (the built-ins), or
        needs no permission at all (`invalid`, `StructuredOutput`).
        """
        ...

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult: ...
