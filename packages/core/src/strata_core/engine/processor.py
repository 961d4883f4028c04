"""One model step: consume the stream into stored parts, run the tools it calls, record how it ended.

Reference section 8. Every part change is stored as its own transaction, behind the stream rather than in
its way (`part_writer.py`), so a process killed mid-step leaves a session the next prompt can continue.
Streamed text and reasoning grow by appending, are announced delta by delta and stored only now and then
(`streamed_text.py` has the rule; the final text is stored at its end). Tool-input deltas only count
toward the step's output limit: as in OpenCode, a call is shown pending at its start and running once
complete. Tools start as soon as their call is complete (`tool_calls.py`). Cancellation (an abort)
propagates once the cleanup has recorded it on the message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import anyio
from attrs import define, field, frozen

from strata_core import llm
from strata_core.bus import Bus, SessionError, SessionStatus
from strata_core.bus import SessionRetry as RetryEvent
from strata_core.clock import Clock
from strata_core.engine.answer import tokens_from_usage
from strata_core.engine.call_ids import CallIds
from strata_core.engine.message_error import message_error
from strata_core.engine.overflow import CompactionSettings, is_overflow
from strata_core.engine.part_writer import PartWriter
from strata_core.engine.run_limits import (
    OutputMeter,
    RunLimits,
    failed_call_streak,
    tool_errors_error,
    turn_steps_error,
)
from strata_core.engine.streamed_text import StreamedText
from strata_core.engine.tool_calls import ToolCallRunner, ToolExecutor, interrupted, is_doom_loop
from strata_core.engine.turn_end import StepEnd
from strata_core.ids import Ids
from strata_core.logging import get_logger
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    MessageError,
    MessageTime,
    MessageWithParts,
    PartTime,
    ReasoningPart,
    RetryPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    ToolPart,
    ToolStatePending,
    ToolStateRunning,
)
from strata_core.permission.flow import Permission
from strata_core.permission.rules import Rule
from strata_core.secret_outputs import SecretOutputs
from strata_core.session.store import SessionStore
from strata_core.tool.contract import Tool, ToolContext

log = get_logger(__name__)

ABORTED_MESSAGE = "The operation was aborted."


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
    compaction: CompactionSettings = field(factory=CompactionSettings)
    limits: RunLimits = field(factory=RunLimits)
    step: int = 1
    """This step's number in the turn, for the turn's step limit."""


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
    texts: dict[str, StreamedText] = field(factory=dict)
    reasoning: dict[str, StreamedText] = field(factory=dict)
    tools: dict[str, ToolPart] = field(factory=dict)
    tool_calls: list[ToolPart] = field(factory=list)
    runner: ToolCallRunner | None = None
    started: bool = False
    retrying: bool = False
    needs_compaction: bool = False
    output: OutputMeter = field(init=False)
    call_ids: CallIds = field(factory=CallIds)

    def __attrs_post_init__(self) -> None:
        self.output = OutputMeter(self.step.limits.step_output_bytes)

    @property
    def message(self) -> AssistantMessage:
        return self.write.message

    async def run(self) -> StepEnd:
        self.tool_calls = list(self.step.earlier_tool_calls)
        try:
            async with anyio.create_task_group() as group:
                self.write.write_behind(group)
                await self.write.message_info()
                self.runner = ToolCallRunner(
                    self.write,
                    self.processor.permissions,
                    self.processor.execute_tool,
                    self.step.tools,
                    self.step.tool_context,
                    group,
                    self.step.agent_ruleset,
                    secrets=self.processor.secrets,
                )
                await self._consume()
                if self.message.error is not None:
                    # The step failed: its history is dropped, so calls still running would report to no one.
                    group.cancel_scope.cancel()
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
            await self._text(event)
        elif isinstance(event, llm.ReasoningStart | llm.ReasoningDelta | llm.ReasoningEnd):
            await self._reasoning(event)
        elif isinstance(event, llm.ToolInputStart | llm.ToolCall):
            await self._tool_event(self.call_ids.rewrite(event))
        elif isinstance(event, llm.Finish):
            await self._finish(event)

    async def _ensure_started(self) -> None:
        if self.retrying:
            self.retrying = False
            self.processor.bus.publish(SessionStatus(self.message.session_id, "busy"))
        if not self.started:
            self.started = True
            await self.write.part(StepStartPart(**self.write.new_part_ids()))

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
        limits, called = self.step.limits, len(self.tool_calls) > len(self.step.earlier_tool_calls)
        streak = failed_call_streak(self.tool_calls)
        if streak >= limits.tool_errors:
            self._stop(tool_errors_error(streak))
        elif called and self.step.step >= limits.turn_steps:
            self._stop(turn_steps_error(limits.turn_steps))

    async def _text(self, event: llm.TextStart | llm.TextDelta | llm.TextEnd) -> None:
        streamed = self.texts.get(event.id)
        now = self.write.now()
        if streamed is None:
            part = TextPart(**self.write.new_part_ids(), time=PartTime(now))
            streamed = await self._open(self.texts, event.id, part, now)
        if isinstance(event, llm.TextDelta):
            await self._grow(streamed, event.text, now)
        elif isinstance(event, llm.TextEnd):
            del self.texts[event.id]
            await self._end(streamed, now, event.provider_metadata)

    async def _reasoning(self, event: llm.ReasoningStart | llm.ReasoningDelta | llm.ReasoningEnd) -> None:
        streamed = self.reasoning.get(event.id)
        now = self.write.now()
        if isinstance(event, llm.ReasoningStart):
            part = ReasoningPart(**self.write.new_part_ids(), time=PartTime(now))
            await self._open(self.reasoning, event.id, part, now)
        elif streamed is None:
            return  # OpenCode drops reasoning that never started
        elif isinstance(event, llm.ReasoningDelta):
            await self._grow(streamed, event.text, now)
        else:
            del self.reasoning[event.id]
            await self._end(streamed, now, event.provider_metadata)

    async def _open(
        self, parts: dict[str, StreamedText], key: str, part: TextPart | ReasoningPart, now: int
    ) -> StreamedText:
        streamed = parts[key] = StreamedText(part, stored_at=now)
        await self.write.part(part)
        return streamed

    async def _grow(self, streamed: StreamedText, delta: str, now: int) -> None:
        streamed.append(delta)
        self.write.delta(streamed.part, delta)
        if streamed.due(now):
            await self.write.save(streamed.stored(now))

    async def _end(self, streamed: StreamedText, now: int, metadata: Mapping[str, Any] | None) -> None:
        part = streamed.settled()
        _close(part, now, metadata)
        await self.write.part(part)

    async def _tool_event(self, event: llm.StreamEvent) -> None:
        if isinstance(event, llm.ToolInputStart):
            self._tool_input_start(event)
        elif isinstance(event, llm.ToolCall):
            await self._tool_call(event)

    def _tool_input_start(self, event: llm.ToolInputStart) -> None:
        # Announced now, stored once the call is complete (or by the cleanup, as aborted, if the stream
        # ends first): storing the short-lived pending state too would cost a write per call for nothing.
        part = ToolPart(
            **self.write.new_part_ids(), call_id=event.call_id, tool=event.tool_name, state=ToolStatePending()
        )
        self.tools[event.call_id] = part
        self.write.announce(part)

    async def _tool_call(self, call: llm.ToolCall) -> None:
        if self.message.summary:
            self._fail(RuntimeError(f"Tool call not allowed while generating summary: {call.tool_name}"))
            return
        part = self.tools.get(call.call_id)
        if part is None:
            part = ToolPart(
                **self.write.new_part_ids(), call_id=call.call_id, tool=call.tool_name, state=ToolStatePending()
            )
            self.tools[call.call_id] = part
        assert self.runner is not None
        part.tool = self.runner.repaired_name(call.tool_name)
        if call.provider_metadata:
            part.metadata = {**(part.metadata or {}), "providerMetadata": dict(call.provider_metadata)}
        part.state = ToolStateRunning(input=dict(call.input or {}), time=PartTime(self.write.now()))
        await self.write.part(part)
        self.tool_calls.append(part)
        self.runner.start(part, call, doom_loop=is_doom_loop(self.tool_calls))

    async def _finish(self, event: llm.Finish) -> None:
        tokens = tokens_from_usage(event.usage)
        cost = llm.step_cost(event.usage, self.step.model.info.cost)
        finish = StepFinishPart(**self.write.new_part_ids(), reason=event.reason, cost=cost, tokens=tokens)
        await self.write.part(finish)
        # The message itself is stored once, at cleanup, right after the stream and the step's tools end.
        self.message.finish = event.reason
        self.message.tokens = tokens
        self.message.cost += cost
        if not self.message.summary:
            self.needs_compaction = is_overflow(tokens, self.step.model.info.limits, self.step.compaction)

    async def _cleanup(self) -> None:
        end = self.write.now()
        for streamed in [*self.texts.values(), *self.reasoning.values()]:
            await self._end(streamed, end, None)
        for tool_part in self.tools.values():
            if isinstance(tool_part.state, ToolStatePending | ToolStateRunning):
                tool_part.state = interrupted(tool_part.state, end)
                await self.write.part(tool_part)
        self.message.time.completed = end
        await self.write.message_info()


def _close(part: TextPart | ReasoningPart, end: int, metadata: Mapping[str, Any] | None) -> None:
    part.time = PartTime(part.time.start if part.time else end, end)
    if metadata:
        part.metadata = dict(metadata)


def _single(error: Exception) -> Exception:
    """The one error inside a task group's exception group, so the message names it and not the group."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        inner = error.exceptions[0]
        if not isinstance(inner, Exception):
            break
        error = inner
    return error
