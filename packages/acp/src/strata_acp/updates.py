"""What the client is told about a session's parts: Strata's stored parts as ACP `session/update`s.

`UpdateStream` turns the bus's part events (live) and a stored history (replay on `session/load`) into the
updates `opencode acp` sends, keyed by part: text as `agent_message_chunk` (each delta once), reasoning as
`agent_thought_chunk`, a tool call as one `tool_call` (status `pending`) followed by `tool_call_update`s
(`in_progress` with its kind and locations, then `completed` with its output and final title but, as
OpenCode sends it, no kind, or `failed` with the error), and the
todo list as a `plan`. One class serves both paths, so a replayed session reads like the live one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)
from attrs import define, field

from strata_core.message import (
    Part,
    ReasoningPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
)

SessionUpdate: TypeAlias = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AvailableCommandsUpdate
)
ToolKind: TypeAlias = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]

TOOL_KINDS: Mapping[str, ToolKind] = {
    "bash": "execute",
    "webfetch": "fetch",
    "edit": "edit",
    "write": "edit",
    "patch": "edit",
    "apply_patch": "edit",
    "multiedit": "edit",
    "grep": "search",
    "glob": "search",
    "codesearch": "search",
    "websearch": "search",
    "list": "read",
    "read": "read",
}
"""OpenCode's kinds per tool; every other tool (task, todowrite, skill, MCP tools) is `other`."""

PLAN_STATUSES = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
PLAN_PRIORITIES = {"high": "high", "medium": "medium", "low": "low"}


def tool_kind(tool: str) -> ToolKind:
    return TOOL_KINDS.get(tool, "other")


def tool_locations(tool: str, arguments: Mapping[str, Any], directory: str) -> list[ToolCallLocation]:
    """The files a call is about (the editor can follow along): its `filePath`, a search's `path`, a shell
    command's working directory."""
    path = arguments.get("filePath") or arguments.get("path")
    if isinstance(path, str) and path:
        return [ToolCallLocation(path=path)]
    if tool == "bash":
        return [ToolCallLocation(path=str(arguments.get("workdir") or directory))]
    return []


@define
class UpdateStream:
    """The updates still to send for a session's parts; remembers what each part has already said."""

    directory: str
    """The project directory: where a shell command runs when it names no `workdir`."""
    _sent_text: dict[str, int] = field(factory=dict, init=False)
    _tool_status: dict[str, str] = field(factory=dict, init=False)

    def user_text(self, part: Part) -> list[SessionUpdate]:
        """A replayed user message's text (what the person typed, not the synthetic parts around it)."""
        if isinstance(part, TextPart) and not part.synthetic and not part.ignored and part.text:
            return [update_user_message_text(part.text)]
        return []

    def delta(self, part_id: str, text: str, reasoning: bool) -> list[SessionUpdate]:
        """A piece appended to a text or reasoning part."""
        self._sent_text[part_id] = self._sent_text.get(part_id, 0) + len(text)
        return [_chunk(text, reasoning)] if text else []

    def part(self, part: Part) -> list[SessionUpdate]:
        """An assistant part as it now stands: what it has to say that was not said yet."""
        if isinstance(part, TextPart | ReasoningPart):
            if isinstance(part, TextPart) and (part.synthetic or part.ignored):
                return []
            sent = self._sent_text.get(part.id, 0)
            if len(part.text) <= sent:
                return []
            self._sent_text[part.id] = len(part.text)
            return [_chunk(part.text[sent:], isinstance(part, ReasoningPart))]
        if isinstance(part, ToolPart):
            return self._tool(part)
        return []

    def _tool(self, part: ToolPart) -> list[SessionUpdate]:
        state = part.state
        status = _acp_status(state)
        previous = self._tool_status.get(part.call_id)
        if previous == status and status != "in_progress":
            return []
        self._tool_status[part.call_id] = status
        arguments = state.input
        kind = tool_kind(part.tool)
        locations = tool_locations(part.tool, arguments, self.directory)
        updates: list[SessionUpdate] = []
        if previous is None:
            title = getattr(state, "title", None) or part.tool
            updates.append(
                start_tool_call(
                    part.call_id, title, kind=kind, status="pending", locations=locations, raw_input=arguments
                )
            )
            if status == "pending":
                return updates
        if isinstance(state, ToolStateCompleted):
            updates.append(
                update_tool_call(
                    part.call_id,
                    status="completed",
                    title=state.title or part.tool,
                    content=[tool_content(text_block(_shown_output(state)))],
                    raw_output={"output": state.output, "metadata": state.metadata},
                )
            )
            if part.tool == "todowrite":
                updates.append(plan_of(arguments))
        elif isinstance(state, ToolStateError):
            updates.append(
                update_tool_call(
                    part.call_id,
                    status="failed",
                    kind=kind,
                    title=part.tool,
                    locations=locations,
                    raw_input=arguments,
                    content=[tool_content(text_block(state.error))],
                    raw_output={"error": state.error},
                )
            )
        elif not isinstance(state, ToolStatePending):
            updates.append(
                update_tool_call(
                    part.call_id,
                    status="in_progress",
                    kind=kind,
                    title=state.title or part.tool,
                    locations=locations,
                    raw_input=arguments,
                )
            )
        return updates


def plan_of(arguments: Mapping[str, Any]) -> AgentPlanUpdate:
    """The todo list the model wrote, as the client's plan."""
    todos = arguments.get("todos")
    entries = [
        plan_entry(
            str(todo.get("content", "")),
            status=PLAN_STATUSES.get(str(todo.get("status")), "pending"),  # type: ignore[arg-type]
            priority=PLAN_PRIORITIES.get(str(todo.get("priority")), "medium"),  # type: ignore[arg-type]
        )
        for todo in (todos if isinstance(todos, list) else [])
        if isinstance(todo, dict)
    ]
    return update_plan(entries)


def _chunk(text: str, reasoning: bool) -> AgentMessageChunk | AgentThoughtChunk:
    return update_agent_thought_text(text) if reasoning else update_agent_message_text(text)


def _acp_status(state: Any) -> str:
    if isinstance(state, ToolStatePending):
        return "pending"
    if isinstance(state, ToolStateCompleted):
        return "completed"
    if isinstance(state, ToolStateError):
        return "failed"
    return "in_progress"


def _shown_output(state: ToolStateCompleted) -> str:
    """What the editor shows for a finished call: a read's file text (its preview), else the output."""
    preview = state.metadata.get("preview") if state.metadata else None
    return preview if isinstance(preview, str) else state.output
