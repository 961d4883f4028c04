"""The turn loop (reference 1): store the user's message, then step until the turn is done.

Each step re-reads the history, decides whether the turn is over, and otherwise runs one pending task
(a subtask or a compaction) or one model call through the processor. One loop runs per session; a prompt
that arrives while it runs is stored and picked up by that loop (wrapped as a queued message), and its
caller gets the same result. Cancelling (`cancel()`, or the caller's own scope) aborts the step in flight
and leaves a session the next prompt continues.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from attrs import define, field

from strata_core import llm
from strata_core.bus import SessionStatus
from strata_core.context.agent import AgentInfo
from strata_core.engine.compaction import (
    CompactionSettings,
    NothingToCompactError,
    compact_at,
    compaction_settings,
    is_overflow,
)
from strata_core.engine.loop_run import AbortMark, LoopRun
from strata_core.engine.loop_services import LoopSettings, SessionRecords, StepServices
from strata_core.engine.processor import LoopStep, StepEnd, StepInput
from strata_core.engine.prompt_input import (
    FileInput,
    PromptPart,
    PromptRequest,
    SubtaskInput,
    TextInput,
    UserMessageWriter,
    check_message_id,
)
from strata_core.engine.run_limits import RunLimits
from strata_core.engine.session_writer import writing
from strata_core.engine.step_context import structured_outcome, tool_context
from strata_core.engine.subtask import TASK_TOOL
from strata_core.engine.turn_request import StepState
from strata_core.engine.turn_targets import AgentNotFoundError, ResolvedTurn, TurnChoice, TurnTargets
from strata_core.history import Latest, extend_compacted, filter_compacted, latest
from strata_core.logging import get_logger
from strata_core.message import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    ModelRef,
    PathInfo,
    StepFinishPart,
    SubtaskPart,
    UserMessage,
)
from strata_core.permission.rules import Rule, to_config
from strata_core.session_info import SessionInfo

__all__ = [
    "AgentNotFoundError",
    "FileInput",
    "PromptPart",
    "PromptRequest",
    "ResolvedTurn",
    "SessionLoop",
    "SubtaskInput",
    "TextInput",
    "TurnChoice",
]

log = get_logger(__name__)

NO_USER_MESSAGE = "No user message found in stream. This should never happen."


class Spawner(Protocol):
    """Where background work (titles, prune) runs: the runtime's task group."""

    def start_soon(self, func: Callable[..., Awaitable[Any]], *args: Any, name: object = None) -> None: ...


@define
class SessionLoop:
    """Strata's `Loop`: the session's records, the turn's targets, a step's services, the settings it reads,
    and where background work (titles, prune) runs."""

    records: SessionRecords
    targets: TurnTargets
    steps: StepServices
    settings: LoopSettings
    background: Spawner | None = None
    _runs: dict[str, LoopRun] = field(factory=dict, init=False, repr=False)

    # ------------------------------------------------------------------------------------- public API

    async def prompt(self, request: PromptRequest) -> MessageWithParts:
        """Store the user's message and run (or join) the session's loop; the last assistant message (with
        `no_reply`, the stored user message, and no turn).

        Another process writing the session: `SessionBusyError`, before anything is stored."""
        async with writing(self.records.store, request.session_id, self.records.clock):
            return await self._prompt(request)

    async def _prompt(self, request: PromptRequest) -> MessageWithParts:
        running = self._runs.get(request.session_id)
        arrived = None if running is None else running.abort_mark()
        session = await self.records.sessions.get(request.session_id)
        if session.revert:  # a new prompt after a revert drops the reverted messages for good (OpenCode's cleanup)
            session = await self.records.sessions.drop_reverted(session.id)
        resolved = await self.resolve(TurnChoice.of(request))
        agent, model = resolved.agent, resolved.model
        project = await self.settings.project.info()
        context = tool_context(session, agent, project, None, ())
        writer = UserMessageWriter(self.records.store, self.records.bus, self.records.ids)
        # New ids sort after the stored ones, an import's too (its clock may have run ahead); the last is the greatest.
        newest = await self.records.store.newest_message_id(session.id)
        now = self.records.clock.now_ms()
        holder = await self.records.store.message_session(request.message_id) if request.message_id else None
        check_message_id(request.message_id, newest, now, holder)
        self.records.ids.advance_past(known for known in (newest, request.message_id) if known is not None)
        await self.records.sessions.set_target(session.id, agent.name, model)  # before the message, as OpenCode
        stored = await writer.write(request, agent.name, model, context, self.steps.registry.get("read"), now)
        if request.tools:
            rules = [Rule(name, "*", "allow" if on else "deny") for name, on in request.tools.items()]
            await self.records.sessions.set_permission(session.id, to_config(rules))
        else:
            await self.records.sessions.touch(session.id)
        return stored if request.no_reply else await self._run_or_join(session.id, arrived)

    async def resolve(self, choice: TurnChoice) -> ResolvedTurn:
        """The agent and model (with variant) a prompt runs with, decided as `prompt` decides them; what does
        not resolve raises (and is reported on the bus for an existing session), storing nothing."""
        return await self.targets.resolve(choice)

    async def compact(self, session_id: str) -> MessageWithParts:
        """Summarise the session now (manual compaction: no continue message afterwards)."""
        async with writing(self.records.store, session_id, self.records.clock):
            return await self._compact(session_id)

    async def _compact(self, session_id: str) -> MessageWithParts:
        history = await self.records.sessions.messages(session_id)
        self.records.ids.advance_past(m.info.id for m in history[-1:])
        user = next((m.info for m in reversed(history) if isinstance(m.info, UserMessage)), None)
        if user is None:
            raise NothingToCompactError(session_id)
        await self.steps.compaction.create(session_id, user.agent, user.model, auto=False)
        return await self._run_or_join(session_id)

    async def cancel(self, session_id: str) -> None:
        """Abort the session's running turn, if any (subagent sessions inside it go with it, and the prompts that
        arrived before this and wait for it: they answer with its aborted message)."""
        run = self._runs.get(session_id)
        if run is not None:
            run.aborts += 1
            run.scope.cancel()

    def is_running(self, session_id: str) -> bool:
        return session_id in self._runs

    async def ended(self, session_id: str) -> None:
        """Return once the session's running turn, if any, has ended and stored its end."""
        run = self._runs.get(session_id)
        if run is not None:
            await run.done.wait()

    # ------------------------------------------------------------------------------------- runs

    async def _run_or_join(self, session_id: str, arrived: AbortMark | None = None) -> MessageWithParts:
        run = self._runs.get(session_id)
        while run is not None and run.scope.cancel_called:
            # An aborted run reads no new input: a prompt sent as soon as the abort was answered (its clients
            # are told idle at once) waits for the run's end, then starts a run of its own; unless the session
            # is aborted again after the prompt arrived, which ends it with the run (its message stays stored).
            since = arrived if arrived is not None and arrived.run is run else run.abort_mark()
            await run.done.wait()
            if since.aborted_again():
                return await self._last_answer(session_id)
            run = self._runs.get(session_id)
        if run is not None:
            run.new_input = True
            await run.done.wait()
            return await self._last_answer(session_id)
        run = LoopRun()
        self._runs[session_id] = run
        try:
            with run.scope:
                settings = await self._settings()
                await self._loop(session_id, run, settings)
                self._spawn(self.steps.compaction.prune, session_id, settings)
        finally:
            # No await between the loop's decision to stop and this: a prompt arriving now starts a new run.
            del self._runs[session_id]
            run.done.set()
            self.records.bus.publish(SessionStatus(session_id, "idle"))
        return await self._last_answer(session_id)

    async def _loop(self, session_id: str, run: LoopRun, settings: CompactionSettings) -> None:
        step = 0
        while True:
            self.records.bus.publish(SessionStatus(session_id, "busy"))
            session, messages, added = await self._refresh(session_id, run)
            # After a plain step the history grows by its answer: extended, not filtered from the start again.
            extended = None if added is None or run.history is None else extend_compacted(run.history, added)
            history = run.history = extended if extended is not None else filter_compacted(messages)
            state = latest(messages)  # the store's order: the filtered view puts a summary before its tail
            if state.user is None:
                raise RuntimeError(NO_USER_MESSAGE)
            if state.turn_finished:
                outcome: LoopStep = StepEnd.STOP
            else:
                step += 1
                outcome = await self._step(session, history, state, step, settings, run)
            if outcome is StepEnd.STOP and not run.new_input:
                return

    async def _refresh(
        self, session_id: str, run: LoopRun
    ) -> tuple[SessionInfo, list[MessageWithParts], list[MessageWithParts] | None]:
        """The session and its messages, and what was added since the last call (None: all read again)."""
        answered, run.answered = run.answered, None
        if run.new_input or run.session is None or run.messages is None or answered is None:
            run.new_input = False  # before reading, so a prompt stored during the read is noticed later
            run.session = await self.records.sessions.get(session_id)
            run.messages = await self.records.store.messages(session_id)
            self.records.ids.advance_past(m.info.id for m in run.messages[-1:])
            return run.session, run.messages, None
        run.messages = [*run.messages, answered]
        return run.session, run.messages, [answered]

    async def _step(
        self,
        session: SessionInfo,
        history: list[MessageWithParts],
        state: Latest,
        step: int,
        settings: CompactionSettings,
        run: LoopRun,
    ) -> LoopStep:
        assert state.user is not None and isinstance(state.user.info, UserMessage)
        user = state.user.info
        model = self.targets.model(session.id, user.model)
        if step == 1:
            self._spawn(self.steps.title.generate, session.id, model)
        if state.tasks:
            task = state.tasks[-1]
            outcome = await self._task(session, history, task, user, model, settings)
            run.just_compacted = isinstance(task, CompactionPart) and outcome is StepEnd.CONTINUE
            return outcome
        finished = state.finished
        if (
            finished is not None
            and isinstance(finished.info, AssistantMessage)
            and not finished.info.summary
            and is_overflow(finished.info.tokens, model.info.limits, settings)
        ):
            await self.steps.compaction.create(session.id, user.agent, user.model, auto=True)
            return StepEnd.CONTINUE
        agent = await self.targets.agent(session.id, user.agent)
        return await self._model_step(session, history, state, agent, model, step, settings, run)

    async def _task(
        self,
        session: SessionInfo,
        history: list[MessageWithParts],
        task: SubtaskPart | CompactionPart,
        user: UserMessage,
        model: llm.LanguageModel,
        settings: CompactionSettings,
    ) -> LoopStep:
        project = await self.settings.project.info()
        path = PathInfo(str(project.directory), str(project.worktree))
        if isinstance(task, CompactionPart):
            request = next(m for m in history if m.info.id == task.message_id)
            return await self.steps.compaction.process(request, history, model, settings, path)
        agent = await self.targets.agent(session.id, user.agent)
        tool = self.steps.registry.get(TASK_TOOL)
        tools = {TASK_TOOL: tool} if tool is not None else {}
        context = tool_context(session, agent, project, model.info, history)
        await self.steps.subtasks.run(task, user, tools, context, path, agent.permission)
        return StepEnd.CONTINUE

    async def _model_step(
        self,
        session: SessionInfo,
        history: list[MessageWithParts],
        state: Latest,
        agent: AgentInfo,
        model: llm.LanguageModel,
        step: int,
        settings: CompactionSettings,
        run: LoopRun,
    ) -> LoopStep:
        assert state.user is not None and isinstance(state.user.info, UserMessage)
        user = state.user.info
        project = await self.settings.project.info()
        is_last_step = agent.steps is not None and step >= agent.steps
        finished_id = state.finished.info.id if state.finished is not None else None
        plan_mode = self.steps.plan_mode is not None  # built only while experimental plan mode is on
        if plan_mode:
            history = await self._plan_mode_reminders(session, history, agent, run)
        step_state = StepState(
            session, agent, model, user, history, step, finished_id, is_last_step, run.converted, plan_mode, run.urls
        )
        built = await self.steps.requests.build(step_state)
        path = PathInfo(str(project.directory), str(project.worktree))
        ref = ModelRef(model.info.provider_id, model.info.id, user.model.variant)
        message = AssistantMessage.answering(
            user, agent.name, ref, path, self.records.ids.new("msg"), self.records.clock.now_ms()
        )
        context = tool_context(session, agent, project, model.info, history, state.user)
        step_input = StepInput(
            message=message,
            model=model,
            request=built.request,
            tools=built.tools,
            tool_context=context,
            agent_ruleset=agent.permission,
            earlier_tool_calls=state.turn_tool_calls,
            compact_at=compact_at(model.info.limits, settings),
            limits=RunLimits.from_config((await self.settings.config.get()).blocks.limits),
            step=step,
            start_snapshot=_previous_snapshot(run, step),
            stored_history=run.messages,
        )
        try:
            outcome = await self.steps.processor.process(step_input)
        finally:
            self.steps.instructions.clear(message.id)
        run.finished_snapshot = _finished_snapshot(outcome.answer, step)
        result = outcome.result
        if result is StepEnd.COMPACT and run.just_compacted:
            await self.steps.compaction.still_too_large(message)
            return StepEnd.STOP
        run.just_compacted = False
        if result is StepEnd.COMPACT:
            overflow = not message.finish
            await self.steps.compaction.create(session.id, user.agent, user.model, auto=True, overflow=overflow)
            return StepEnd.CONTINUE
        # plan_exit stores a user message for the build agent: the next step must read the session again.
        handed_over = self.steps.plan_mode is not None and self.steps.plan_mode.handed_over(outcome.answer)
        run.answered = None if handed_over else outcome.answer
        if built.structured is not None:
            return await structured_outcome(
                self.records.store, self.records.bus, message, built.structured.captured, result
            )
        return result

    # ------------------------------------------------------------------------------------- helpers

    async def _plan_mode_reminders(
        self, session: SessionInfo, history: list[MessageWithParts], agent: AgentInfo, run: LoopRun
    ) -> list[MessageWithParts]:
        assert self.steps.plan_mode is not None
        update = await self.steps.plan_mode.remind(session, history, agent.name)
        if update.new_parts and run.messages is not None:
            # The reminder is stored now; the run's cached read gets it too, so later steps keep sending it.
            touched = {part.message_id for part in update.new_parts}
            changed = {m.info.id: m for m in update.messages if m.info.id in touched}
            run.messages = [changed.get(m.info.id, m) for m in run.messages]
            run.history = None  # a message in it changed: the next step filters the history again
        return update.messages

    async def _settings(self) -> CompactionSettings:
        return compaction_settings((await self.settings.config.get()).compaction, self.settings.env)

    def _spawn(self, func: Callable[..., Awaitable[Any]], *args: Any) -> None:
        if self.background is not None:
            self.background.start_soon(func, *args)

    async def _last_answer(self, session_id: str) -> MessageWithParts:
        for message in reversed(await self.records.store.messages(session_id)):
            if isinstance(message.info, AssistantMessage):
                return message
        raise LookupError(f"Session {session_id} has no assistant message")


def _previous_snapshot(run: LoopRun, step: int) -> str | None:
    """The snapshot the step before `step` finished with, when that step was a model step."""
    if run.finished_snapshot is None or run.finished_snapshot[0] != step - 1:
        return None
    return run.finished_snapshot[1]


def _finished_snapshot(answer: MessageWithParts, step: int) -> tuple[int, str] | None:
    finishes = [part for part in answer.parts if isinstance(part, StepFinishPart) and part.snapshot]
    return (step, finishes[-1].snapshot) if finishes and finishes[-1].snapshot else None
