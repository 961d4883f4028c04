"""Running the tool calls of one step: each call moves its part from running to completed or error.

Calls start as soon as the model has finished writing them and run concurrently in the step's task group.
The turn's calls are looked back on for a doom loop (the same call again and again) and for a streak of
failed calls (config `limits.tool_errors`), which the processor stops the turn on.
Whatever happens is recorded as a result the model sees (invalid arguments, an unknown tool, a refusal, a
crash in the tool); only cancellation propagates, and the processor's cleanup marks such calls interrupted,
or completed with the result a tool answered the cancellation with (`ToolContext.end_on_abort`: bash).
A result holding a secret file's content (`ToolResult.secret_files`) is stored as a placeholder, its clear
output kept in memory (`strata_core.secret_outputs`) for the requests that follow. What a tool gives back
comes from outside (files, commands, MCP servers) and is made valid text here (`strata_core.text`), where it
enters the session: a name or content that is not UTF-8 keeps lone surrogates no store or request accepts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from anyio.abc import TaskGroup
from attrs import define, evolve, field

from strata_core import llm
from strata_core.engine.part_writer import PartWriter
from strata_core.logging import get_logger
from strata_core.message import (
    UNKNOWN_ERROR,
    FilePart,
    MessageError,
    PartTime,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
)
from strata_core.permission.flow import Permission
from strata_core.permission.rules import PermissionRefusedError, Rule
from strata_core.secret_outputs import ClearOutput, SecretOutputs, secret_placeholder
from strata_core.text import valid_strings, valid_text
from strata_core.tool.arguments import is_invalid_arguments_message
from strata_core.tool.builtin.invalid import NAME as INVALID
from strata_core.tool.contract import Attachment, Tool, ToolContext, ToolResult
from strata_core.tool.runner import ToolCallOutcome, ToolRunOutcome, refused, repair_tool_name

log = get_logger(__name__)

TOOL_ABORTED = "Tool execution aborted"
DOOM_LOOP_THRESHOLD = 3


class ToolExecutor(Protocol):
    """Runs one call by name among the offered tools: repair, argument checks, permission outcomes, truncation.

    `tool.runner.run_call` is the default; an unknown or unreadable call comes back rewritten to `invalid`.
    """

    async def __call__(
        self,
        tools: Mapping[str, Tool],
        name: str,
        raw_args: Mapping[str, Any] | None,
        ctx: ToolContext,
        *,
        parse_error: str | None = None,
        agent_ruleset: Sequence[Rule] | None,
    ) -> ToolCallOutcome: ...


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


def is_failed_call(part: ToolPart) -> bool:
    """A call that never ran: an unknown tool or unreadable arguments (run as `invalid`), or invalid ones."""
    if part.tool == INVALID:
        return True
    return isinstance(part.state, ToolStateError) and is_invalid_arguments_message(part.state.error)


def failed_call_streak(calls: Sequence[ToolPart]) -> int:
    """How many of the newest calls failed in a row."""
    streak = 0
    for part in reversed(calls):
        if not is_failed_call(part):
            break
        streak += 1
    return streak


def tool_errors_error(streak: int) -> MessageError:
    return MessageError(
        UNKNOWN_ERROR,
        f"the model made {streak} failed tool calls in a row (unknown tools, or arguments that are not valid), "
        f"so the turn was stopped (limits.tool_errors in strata.json sets how many)",
    )


def valid_result(result: ToolResult) -> ToolResult:
    """`result` with valid text only in what the part stores and the model reads."""
    return evolve(
        result,
        output=valid_text(result.output),
        title=valid_text(result.title),
        metadata=valid_strings(dict(result.metadata)),
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
    permissions: Permission
    execute_tool: ToolExecutor
    tools: Mapping[str, Tool]
    template: ToolContext
    group: TaskGroup
    agent_ruleset: Sequence[Rule] | None = None
    """The agent's own rules (without the session's): the runner words its truncation advice by them."""
    secrets: SecretOutputs = field(factory=SecretOutputs)
    """Where a secret file's output waits for the next request, while its part stores a placeholder."""
    blocked: bool = False
    ended_on_abort: dict[str, ToolStateCompleted] = field(factory=dict)
    """By call id: the completed state a cancelled call's tool answered its cancellation with (`end_on_abort`),
    which the step's cleanup stores in place of the interrupted one."""

    def repaired_name(self, name: str) -> str:
        """The offered tool a call means (`Read` -> `read`), or the name as given when none is offered."""
        return repair_tool_name(name, self.tools) or name

    def start(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> None:
        self.group.start_soon(self._run, part, call, doom_loop)

    async def _run(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> None:
        called = await self._call(part, call, doom_loop)
        outcome = called.outcome
        self.blocked = self.blocked or outcome.blocked
        state = part.state
        assert isinstance(state, ToolStateRunning), "only this task moves a running call on"
        # An unknown or unreadable call was rewritten to `invalid`: the part records what actually ran.
        part.tool = called.tool_name
        args = dict(called.input)
        end = self.writer.now()
        result = valid_result(outcome.result)
        if outcome.is_error:
            part.state = ToolStateError(
                input=args,
                error=valid_text(outcome.error or result.output),
                time=PartTime(state.time.start, end),
                metadata=dict(result.metadata) or None,
            )
        else:
            part.state = self._completed(part, state, args, result, end)
        await self.writer.part(part)

    def _completed(
        self, part: ToolPart, state: ToolStateRunning, args: dict[str, Any], result: ToolResult, end: int
    ) -> ToolStateCompleted:
        output, attachments = self._kept(part, result)
        return ToolStateCompleted(
            input=args,
            output=output,
            title=result.title or part.tool,
            metadata=dict(result.metadata),
            time=ToolCompletedTime(start=state.time.start, end=end),
            attachments=attachments,
        )

    def _kept(self, part: ToolPart, result: ToolResult) -> tuple[str, list[FilePart] | None]:
        """The output and attachments the part stores: a placeholder for a secret file's content, which
        waits in `secrets` for this process's next requests instead."""
        attachments = self._attachments(result.attachments) or None
        if not result.secret_files:
            return result.output, attachments
        placeholder = secret_placeholder(result.secret_files)
        self.secrets.keep(part, ClearOutput(result.output, placeholder, attachments))
        return placeholder, None

    async def _call(self, part: ToolPart, call: llm.ToolCall, doom_loop: bool) -> ToolCallOutcome:
        await self.writer.flush()  # the call is on disk before the tool can change anything
        ctx = self._context(part)
        if doom_loop:
            try:
                await ctx.ask("doom_loop", [part.tool], [part.tool], {"tool": part.tool, "input": part.state.input})
            except PermissionRefusedError as error:
                return ToolCallOutcome(part.tool, part.state.input, refused(error))
        try:
            return await self.execute_tool(
                self.tools,
                call.tool_name,
                call.input,
                ctx,
                parse_error=call.parse_error,
                agent_ruleset=self.agent_ruleset,
            )
        except Exception as error:  # executors return failures as outcomes; a defect still becomes one
            log.exception("tool_calls.executor_failed", tool=part.tool)
            message = f"Tool execution failed: {error}"
            return ToolCallOutcome(
                part.tool, part.state.input, ToolRunOutcome(ToolResult(output=message), True, message)
            )

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
                state.title = valid_text(title) if title is not None else state.title
                state.metadata = valid_strings(dict(metadata))
                self.writer.queue(part)

        def end_on_abort(result: ToolResult) -> None:
            state = part.state
            if isinstance(state, ToolStateRunning):
                completed = self._completed(part, state, dict(state.input), valid_result(result), self.writer.now())
                self.ended_on_abort[part.call_id] = completed

        return evolve(
            self.template,
            message_id=message.id,
            call_id=part.call_id,
            ask=ask,
            update_metadata=update_metadata,
            end_on_abort=end_on_abort,
        )

    def _attachments(self, attachments: Sequence[Attachment]) -> list[FilePart]:
        return [
            FilePart(**self.writer.new_part_ids(), mime=a.mime, url=a.url, filename=a.filename) for a in attachments
        ]
