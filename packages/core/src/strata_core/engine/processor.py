"""One model step: consume the stream into stored parts, run the tools it calls, record how it ended.

Reference section 8. Every part change is stored as its own transaction, behind the stream rather than in
its way (`part_writer.py`), so a process killed mid-step leaves a session the next prompt can continue.
`stream_parts.py` turns the stream's events into parts; tool-input deltas only count toward the step's
output limit. Tools start as soon as their call is complete (`tool_calls.py`). Cancellation (an abort)
propagates once the cleanup has recorded it on the message. A failure is stored on the message in
OpenCode's words (`message_error`), and the step ends with a `StepEnd` for the loop.

The step's snapshots (`step_snapshots.py`) frame it: the step-start part carries the worktree's snapshot
before any tool runs; the step-finish part, stored once the step's tools have ended (OpenCode's order), the
snapshot after them, then a `patch` part names the files that changed and the turn's diffs are summarised.
How far one turn may go (config `limits`, `run_limits.py`) is checked here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeAlias

import anyio
from attrs import define, field, frozen

from strata_core import llm
from strata_core.bus import Bus, SessionError, SessionStatus
from strata_core.bus import SessionRetry as RetryEvent
from strata_core.clock import Clock
from strata_core.engine.part_writer import PartWriter
from strata_core.engine.run_limits import OutputMeter, RunLimits, turn_steps_error
from strata_core.engine.step_snapshots import StepSnapshots
from strata_core.engine.stream_parts import StreamParts
from strata_core.engine.tool_calls import (
    ToolCallRunner,
    ToolExecutor,
    failed_call_streak,
    is_doom_loop,
    tool_errors_error,
)
from strata_core.ids import Ids
from strata_core.logging import get_logger
from strata_core.message import (
    ABORTED_ERROR,
    ABORTED_MESSAGE,
    UNKNOWN_ERROR,
    AssistantMessage,
    MessageError,
    MessageTime,
    MessageWithParts,
    RetryPart,
    StepFinishPart,
    StepStartPart,
    Tokens,
    ToolPart,
)
from strata_core.permission.flow import Permission
from strata_core.permission.rules import Rule
from strata_core.secret_outputs import SecretOutputs
from strata_core.session.store import SessionStore
from strata_core.session.summary import summarize
from strata_core.snapshot.contract import NoSnapshot, Snapshot
from strata_core.tool.contract import Tool, ToolContext

log = get_logger(__name__)


class StepEnd(StrEnum):
    """How one step of a turn ended, as the processor and the loop report it."""

    CONTINUE = "continue"
    """Step again: tool calls were answered, or a task ran."""
    STOP = "stop"
    """The turn is over for now: the model finished, failed, or a permission refusal blocked it."""
    COMPACT = "compact"
    """The context overflowed: summarise the session, then go on."""


LoopStep: TypeAlias = Literal[StepEnd.CONTINUE, StepEnd.STOP]
"""What a step means to the loop once a compaction request is handled: go on or stop."""


@frozen
class StepInput:
    """Everything one step needs besides the processor's own services."""

    message: AssistantMessage
    """The assistant message this step fills; the processor stores it first."""
    model: llm.LanguageModel
    request: llm.ModelRequest
    tools: Mapping[str, Tool]
    tool_context: ToolContext
    """A template: the runner fills in the call id, the permission ask and the progress callback."""
    agent_ruleset: Sequence[Rule] | None = None
    """The agent's own rules, for the runner's truncation advice (the context holds the effective rules)."""
    earlier_tool_calls: Sequence[ToolPart] = ()
    """Tool parts of this turn's earlier steps, oldest first, for the doom-loop check."""
    compact_at: int | None = None
    """The token count at which the step's conversation overflows (`compaction.compact_at`); None: never."""
    limits: RunLimits = field(factory=RunLimits)
    step: int = 1
    """This step's number in the turn, for the turn's step limit."""
    start_snapshot: str | None = None
    """The snapshot the turn's previous step finished with, when it was a model step: this step starts from it
    (OpenCode's next step-start equals the previous step-finish) without scanning the worktree again."""
    stored_history: Sequence[MessageWithParts] | None = None
    """The session's messages before this step as the loop holds them, so the step's diff summaries need not
    read the whole session back; None: they read it from the store."""


@frozen
class StepOutcome:
    result: StepEnd
    answer: MessageWithParts
    """The assistant message as stored at the end of the step (the loop needs not read it back)."""


class Processor(Protocol):
    """The Processor service: one model step, its stream stored as parts, its tools run (the loop and the
    compaction call it; `StepProcessor` is Strata's)."""

    async def process(self, step: StepInput) -> StepOutcome: ...


@define
class StepProcessor:
    """Turns one model call into stored parts and a verdict for the loop."""

    store: SessionStore
    bus: Bus
    permissions: Permission
    execute_tool: ToolExecutor
    clock: Clock
    ids: Ids
    secrets: SecretOutputs = field(factory=SecretOutputs)
    """Holds the clear output of a secret file's read for the next requests; the container shares one."""
    snapshots: Snapshot = field(factory=NoSnapshot)
    """Records the worktree when a step starts and ends (the step's `patch` part, the turn's diffs)."""

    async def process(self, step: StepInput) -> StepOutcome:
        writer = PartWriter(self.store, self.bus, step.message, self.clock, self.ids)
        result = await _StepRun(self, step, writer).run()
        return StepOutcome(result, writer.stored())


@define
class _StepRun:
    """The state of one step while its stream is consumed."""

    processor: StepProcessor
    step: StepInput
    write: PartWriter
    parts: StreamParts = field(init=False)
    tool_calls: list[ToolPart] = field(factory=list)
    runner: ToolCallRunner | None = None
    started: bool = False
    retrying: bool = False
    needs_compaction: bool = False
    output: OutputMeter = field(init=False)
    snapshots: StepSnapshots = field(init=False)
    finish: StepFinishPart | None = None
    """The stream's finish, stored once the step's tools have ended (with the snapshot of that moment)."""
    finished: bool = False
    """Whether the step stored its step-finish part (it ended as the model said, not by a failure or abort)."""

    def __attrs_post_init__(self) -> None:
        self.parts = StreamParts(self.write)
        self.output = OutputMeter(self.step.limits.step_output_bytes)
        self.snapshots = StepSnapshots(self.processor.snapshots, self.step.start_snapshot)

    @property
    def message(self) -> AssistantMessage:
        return self.write.message

    @property
    def called_tools(self) -> bool:
        """Whether this step called a tool (`tool_calls` also holds the turn's earlier steps' calls)."""
        return len(self.tool_calls) > len(self.step.earlier_tool_calls)

    async def run(self) -> StepEnd:
        self.tool_calls = list(self.step.earlier_tool_calls)
        try:
            async with anyio.create_task_group() as group:
                self.write.write_behind(group)
                # Taken while the request goes out; the step-start part waits for it (before any tool runs).
                group.start_soon(self.snapshots.take_start)
                await self.write.message_info()
                if self.step.step == 1 and not self.message.summary:
                    group.start_soon(self._summarize)  # the turn's diffs so far, as OpenCode's first step forks it
                async with anyio.create_task_group() as calls:
                    self.runner = ToolCallRunner(
                        self.write,
                        self.processor.permissions,
                        self.processor.execute_tool,
                        self.step.tools,
                        self.step.tool_context,
                        calls,
                        self.step.agent_ruleset,
                        secrets=self.processor.secrets,
                    )
                    await self._consume()
                    if self.message.error is not None:
                        # The step failed: its history is dropped, so calls still running would report to no one.
                        calls.cancel_scope.cancel()
                await self._end_step()
            self._check_turn_limits()
        except anyio.get_cancelled_exc_class():
            self.message.error = MessageError(ABORTED_ERROR, ABORTED_MESSAGE)
            raise
        except Exception as error:  # recorded either way, so the stored session says how the step ended
            failure = _single(error)
            self._fail(failure)
            if not isinstance(failure, llm.ModelError):
                # A defect (a bug, a test double's failed assertion) is the caller's to see, not a stored value.
                raise failure from None
            log.exception("processor.failed", session_id=self.message.session_id)
        finally:
            self.write.write_behind(None)
            with anyio.CancelScope(shield=True):
                await self._cleanup()
        if self.finished and not self.message.summary:
            await self._summarize()
        if self.needs_compaction:
            return StepEnd.COMPACT
        blocked = self.runner is not None and self.runner.blocked
        return StepEnd.STOP if blocked or self.message.error is not None else StepEnd.CONTINUE

    async def _consume(self) -> None:
        async with self.step.model.stream(self.step.request) as events:
            async for event in events:
                await self._handle(event)
                if self.needs_compaction or self.message.error is not None:
                    break

    async def _handle(self, event: llm.StreamEvent) -> None:
        if isinstance(event, llm.RetryScheduled):
            await self._retry(event)
            return
        if isinstance(event, llm.StreamFailed):
            self._stream_failed(event.error)
            return
        await self._ensure_started()
        if self.output.over(event):
            self.message.finish = "length"
            self._stop(self.output.error())
            return
        if isinstance(event, llm.TextStart | llm.TextDelta | llm.TextEnd):
            await self.parts.text(event)
        elif isinstance(event, llm.ReasoningStart | llm.ReasoningDelta | llm.ReasoningEnd):
            await self.parts.reason(event)
        elif isinstance(event, llm.ToolInputStart):
            self.parts.tool_input_start(event)
        elif isinstance(event, llm.ToolCall):
            await self._tool_call(self.parts.unique_call(event))
        elif isinstance(event, llm.Finish):
            await self._finish(event)

    async def _ensure_started(self) -> None:
        if self.retrying or not self.started:
            # Busy as each attempt's stream starts (OpenCode's processor sets it on the stream's `start`).
            self.retrying = False
            self.processor.bus.publish(SessionStatus(self.message.session_id, "busy"))
        if not self.started:
            self.started = True
            snapshot = await self.snapshots.start()
            await self.write.part(StepStartPart(**self.write.new_part_ids(), snapshot=snapshot))

    async def _retry(self, event: llm.RetryScheduled) -> None:
        error = message_error(event.error, self.message.provider_id)
        now = self.write.now()
        await self.write.part(
            RetryPart(**self.write.new_part_ids(), attempt=event.attempt, error=error, time=MessageTime(now))
        )
        self.retrying = True
        session_id = self.message.session_id
        self.processor.bus.publish(SessionStatus(session_id, "retry"))
        self.processor.bus.publish(RetryEvent(session_id, event.attempt, event.delay, error.message))

    def _stream_failed(self, error: llm.ModelError) -> None:
        if isinstance(error, llm.ContextOverflowError):
            self.needs_compaction = True
            return
        self._fail(error)

    def _fail(self, error: BaseException) -> None:
        self._stop(message_error(error, self.message.provider_id))

    def _stop(self, error: MessageError) -> None:
        self.message.error = error
        self.processor.bus.publish(SessionError(self.message.session_id, error))

    def _check_turn_limits(self) -> None:
        """After the step's calls ended: too many failed calls in a row, or the last step allowed, stop here."""
        if self.message.error is not None or self.needs_compaction:
            return
        limits, called = self.step.limits, self.called_tools
        streak = failed_call_streak(self.tool_calls)
        if streak >= limits.tool_errors:
            self._stop(tool_errors_error(streak))
        elif called and self.step.step >= limits.turn_steps:
            self._stop(turn_steps_error(limits.turn_steps))

    async def _tool_call(self, call: llm.ToolCall) -> None:
        if self.message.summary:
            self._fail(RuntimeError(f"Tool call not allowed while generating summary: {call.tool_name}"))
            return
        assert self.runner is not None
        part = self.parts.running_part(call, self.runner.repaired_name(call.tool_name))
        await self.write.part(part)
        self.tool_calls.append(part)
        self.runner.start(part, call, doom_loop=is_doom_loop(self.tool_calls))

    async def _finish(self, event: llm.Finish) -> None:
        tokens = tokens_from_usage(event.usage)
        cost = llm.step_cost(event.usage, self.step.model.info.cost)
        self.finish = StepFinishPart(**self.write.new_part_ids(), reason=event.reason, cost=cost, tokens=tokens)
        # The message itself is stored once, at cleanup, right after the stream and the step's tools end.
        self.message.finish = event.reason
        self.message.tokens = tokens
        self.message.cost += cost
        if not self.message.summary and self.step.compact_at is not None:
            self.needs_compaction = tokens.count >= self.step.compact_at

    async def _end_step(self) -> None:
        """After the step's tools ended (OpenCode's order): its step-finish part, the message with the step's
        tokens and cost (completed later, at cleanup), then its patch part."""
        if self.finish is not None and self.message.error is None:
            self.write.hold()  # the step-finish and patch parts go to the store with the message, at cleanup
            await self.snapshots.finish(self.write, self.finish, ran_tools=self.called_tools)
            # Clients see the step's tokens now, as OpenCode shows them; the store gets them with the completion,
            # at cleanup, a moment later (one write per step saved).
            self.processor.bus.message_updated(self.message)
            await self.snapshots.patch(self.write, self.finish)
            self.finished = True

    async def _summarize(self) -> None:
        """The turn's diffs on its user message and the session's totals (`session.diff`)."""
        processor = self.processor
        session_id, user_id = self.message.session_id, self.message.parent_id
        earlier = self.step.stored_history
        history = None if earlier is None else [*earlier, self.write.stored()]
        await summarize(processor.store, processor.bus, processor.snapshots, session_id, user_id, history)

    async def _cleanup(self) -> None:
        end = self.write.now()
        await self.parts.close(end, self.runner.ended_on_abort if self.runner is not None else {})
        self.message.time.completed = end
        await self.write.message_info()


def message_error(error: BaseException, provider_id: str = "") -> MessageError:
    """A failure as OpenCode stores it on an assistant message: ProviderAuthError, APIError,
    ContextOverflowError or UnknownError, with its message and data."""
    if isinstance(error, llm.AuthenticationError):
        return MessageError("ProviderAuthError", error.message, {"providerID": provider_id})
    if isinstance(error, llm.ContextOverflowError):
        return MessageError("ContextOverflowError", error.message, {"responseBody": error.body} if error.body else {})
    if isinstance(error, llm.ModelError):
        data: dict[str, Any] = {"isRetryable": error.retryable}
        if error.status is not None:
            data["statusCode"] = error.status
        if error.body:
            data["responseBody"] = error.body
        return MessageError("APIError", error.message, data)
    return MessageError(UNKNOWN_ERROR, str(error) or type(error).__name__)


def tokens_from_usage(usage: llm.Usage) -> Tokens:
    return Tokens(
        input=usage.input_tokens,
        output=usage.output_tokens,
        reasoning=usage.reasoning_tokens,
        cache_read=usage.cache_read_tokens,
        cache_write=usage.cache_write_tokens,
        total=usage.total_tokens,
    )


def _single(error: Exception) -> Exception:
    """The one error inside a task group's exception group, so the message names it and not the group."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        inner = error.exceptions[0]
        if not isinstance(inner, Exception):
            break
        error = inner
    return error
