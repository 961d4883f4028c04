"""Running the tool calls of one step: each call moves its part from running to completed or error.

Calls start as soon as the model has finished writing them and run concurrently in the step's task group.
Whatever happens is recorded as a result the model sees (invalid arguments, an unknown tool, a refusal, a
crash in the tool); only cancellation propagates, and the processor's cleanup marks such calls interrupted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import structlog
from anyio.abc import TaskGroup
from attrs import define, evolve, field, frozen

from strata_core import llm
from strata_core.message import (
    FilePart,
    PartTime,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
)
from strata_core.part_writer import PartWriter
from strata_core.permission import CorrectedError, NoResponderError, PermissionError_, RejectedError
from strata_core.permission_flow import PermissionFlow
from strata_core.tool.base import Attachment, Tool, ToolContext

log = structlog.get_logger(__name__)

TOOL_ABORTED = "Tool execution aborted"
DOOM_LOOP_THRESHOLD = 3


@frozen
class ToolOutcome:
    """What running one tool call produced, as its part will record it."""

    output: str
    """The result text, or the error text when `is_error`."""
    title: str = ""
    metadata: Mapping[str, Any] = field(factory=dict)
    attachments: tuple[Attachment, ...] = ()
    is_error: bool = False
    blocked: bool = False
    """The person refused (or nobody could answer): the turn stops after this step."""


class ToolExecutor(Protocol):
    """Runs one tool call (argument validation, permission outcomes, truncation) into an outcome."""

    async def __call__(self, tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutcome: ...


def stops_the_turn(error: PermissionError_) -> bool:
    """A refusal, or an ask nobody can answer, ends the turn; a configured deny lets the model adapt."""
    return isinstance(error, RejectedError | CorrectedError | NoResponderError)


def is_doom_loop(calls: Sequence[ToolPart]) -> bool:
    """The same tool with the same input, called (not just announced) several times in a row."""
    last = calls[-DOOM_LOOP_THRESHOLD:]
    if len(last) < DOOM_LOOP_THRESHOLD:
        return False
    first = last[0]
    return all(
        part.tool == first.tool
        and not isinstance(part.state, ToolStatePending)
        and part.state.input == first.state.input
        for part in last
    )


def interrupted(state: ToolStatePending | ToolStateRunning, end: int) -> ToolStateError:
    """The state of a call that never finished: an error that keeps what the tool reported so far."""
    metadata = state.metadata if isinstance(state, ToolStateRunning) else None
    start = state.time.start if isinstance(state, ToolStateRunning) else end
    return ToolStateError(
        input=state.input,
        error=TOOL_ABORTED,
        time=PartTime(start, end),
        metadata={**(metadata or {}), "interrupted": True},
    )


@define
class ToolCallRunner:
    """Starts a step's tool calls in its task group and records each outcome on the call's part."""

    writer: PartWriter
    permissions: PermissionFlow
    execute_tool: ToolExecutor
    tools: Mapping[str, Tool]
    template: ToolContext
    group: TaskGroup
    blocked: bool = False
    _progress_queued: set[str] = field(factory=set, init=False)

    def start(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> None:
        self.group.start_soon(self._run, part, call, doom_loop)

    async def _run(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> None:
        outcome = await self._outcome(part, call, doom_loop)
        self.blocked = self.blocked or outcome.blocked
        state = part.state
        assert isinstance(state, ToolStateRunning), "only this task moves a running call on"
        end = self.writer.now()
        if outcome.is_error:
            metadata = dict(outcome.metadata) or None
            part.state = ToolStateError(
                input=state.input, error=outcome.output, time=PartTime(state.time.start, end), metadata=metadata
            )
        else:
            part.state = ToolStateCompleted(
                input=state.input,
                output=outcome.output,
                title=outcome.title or part.tool,
                metadata=dict(outcome.metadata),
                time=ToolCompletedTime(start=state.time.start, end=end),
                attachments=self._attachments(outcome.attachments) or None,
            )
        await self.writer.part(part)

    async def _outcome(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> ToolOutcome:
        if call.parse_error is not None:
            return ToolOutcome(f"The arguments provided to the tool are invalid: {call.parse_error}", is_error=True)
        tool = self.tools.get(part.tool)
        if tool is None:
            available = ", ".join(sorted(self.tools))
            message = f"Model tried to call unavailable tool '{part.tool}'. Available tools: {available}."
            return ToolOutcome(message, is_error=True)
        ctx = self._context(part)
        if doom_loop:
            try:
                await ctx.ask("doom_loop", [part.tool], [part.tool], {"tool": part.tool, "input": part.state.input})
            except PermissionError_ as error:
                return ToolOutcome(str(error), is_error=True, blocked=stops_the_turn(error))
        try:
            return await self.execute_tool(tool, part.state.input, ctx)
        except Exception as error:  # executors return failures as outcomes; a defect still becomes one
            log.exception("tool_calls.executor_failed", tool=part.tool)
            return ToolOutcome(f"Tool execution failed: {error}", is_error=True)

    def _context(self, part: ToolPart) -> ToolContext:
        message = self.writer.message
        ruleset = self.template.ruleset

        async def ask(
            permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
        ) -> None:
            await self.permissions.ask(
                message.session_id,
                permission,
                patterns,
                always,
                metadata,
                ruleset,
                message_id=message.id,
                call_id=part.call_id,
            )

        def update_metadata(title: str | None, metadata: Mapping[str, Any]) -> None:
            state = part.state
            if isinstance(state, ToolStateRunning):
                state.title = title if title is not None else state.title
                state.metadata = dict(metadata)
                self._queue_progress_write(part)

        return evolve(
            self.template, message_id=message.id, call_id=part.call_id, ask=ask, update_metadata=update_metadata
        )

    def _queue_progress_write(self, part: ToolPart) -> None:
        # Tools report progress from synchronous callbacks, often per output chunk: one queued write per
        # part at a time, which stores whatever the latest progress is when it runs.
        if part.id in self._progress_queued:
            return
        self._progress_queued.add(part.id)
        self.group.start_soon(self._write_progress, part)

    async def _write_progress(self, part: ToolPart) -> None:
        self._progress_queued.discard(part.id)
        if isinstance(part.state, ToolStateRunning):
            await self.writer.part(part)

    def _attachments(self, attachments: Sequence[Attachment]) -> list[FilePart]:
        return [
            FilePart(**self.writer.new_part_ids(), mime=a.mime, url=a.url, filename=a.filename) for a in attachments
        ]
