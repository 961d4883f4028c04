"""Compaction: summarise the older part of a session so the rest fits the model again (reference 9).

`create` records the request (a user message with a compaction part); the loop picks it up as a task and
calls `process`, which summarises the head of the history with the compaction agent, keeps a recent tail
verbatim (`tail_start_id`), and, when automatic, adds the message that lets the turn carry on. A summary
request that itself does not fit is recorded as ContextOverflowError and the turn stops: never a loop.

When a conversation no longer fits its model (9.1, 9.5) is decided here too, by pure functions of plain values
(`usable_context`, `compact_at`, `is_overflow`, `estimate_tokens`), so the rules (and OpenCode's asymmetry
between models that state an input limit and those that do not) are pinned by tests without a session; the
loop hands the processor the token count to stop at (`StepInput.compact_at`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from attrs import define, evolve, frozen

from strata_core import llm
from strata_core.bus import Bus, SessionCompacted, SessionError
from strata_core.clock import Clock
from strata_core.config.flags import env_flag
from strata_core.config.schema import CompactionConfig
from strata_core.context.agent import AgentInfo, Agents
from strata_core.engine.parameters import OUTPUT_TOKEN_MAX, max_output_tokens
from strata_core.engine.processor import LoopStep, Processor, StepEnd, StepInput
from strata_core.errors import StrataError
from strata_core.history import is_media, prune_candidates, to_model_messages
from strata_core.ids import Ids
from strata_core.logging import get_logger
from strata_core.message import (
    CONTEXT_OVERFLOW_ERROR,
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageError,
    MessageTime,
    MessageWithParts,
    ModelRef,
    Part,
    PathInfo,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    UserMessage,
)
from strata_core.serialization import unstructure
from strata_core.session.store import SessionStore
from strata_core.texts import read_prompt
from strata_core.tool.contract import ToolContext

log = get_logger(__name__)


class NothingToCompactError(StrataError, ValueError):
    """Compaction asked of a session with no user message yet: there is no conversation to summarise."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"Session {session_id} has no messages to summarize yet; send it a prompt first")
        self.session_id = session_id


COMPACTION_AGENT = "compaction"
SUMMARY_TOOL_OUTPUT_MAX_CHARS = 2_000
NEW_ANCHOR = "Create a new anchored summary from the conversation history above."
UPDATE_ANCHOR = (
    "Update the anchored summary below using the conversation history above.\n"
    "Preserve still-true details, remove stale details, and merge in the new facts.\n"
    "<previous-summary>\n{previous}\n</previous-summary>"
)
CONTINUE_TEXT = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
REPLAY_TOO_LARGE = "Conversation history too large to compact - exceeds model context limit"
SESSION_TOO_LARGE = "Session too large to compact - context exceeds model limit even after stripping media"
STILL_TOO_LARGE = "Context still exceeds the model limit after compaction"
RESERVED_CAP = 20_000
"""Output reserve for models with a separate input limit: min(this, max output tokens)."""


@frozen
class CompactionSettings:
    """The `compaction` config block, as far as the engine needs it."""

    auto: bool = True
    prune: bool = False
    """Opt-in, as in OpenCode's code (its schema text claims the default is on)."""
    reserved: int | None = None
    tail_turns: int = 2
    preserve_recent_tokens: int | None = None


def compaction_settings(config: CompactionConfig, env: Mapping[str, str]) -> CompactionSettings:
    """The `compaction` block with OpenCode's defaults and env switches (`*_DISABLE_AUTOCOMPACT`, `*_DISABLE_PRUNE`)."""
    return CompactionSettings(
        auto=config.auto is not False and not env_flag(env, "DISABLE_AUTOCOMPACT"),
        prune=bool(config.prune) and not env_flag(env, "DISABLE_PRUNE"),
        reserved=config.reserved,
        tail_turns=2 if config.tail_turns is None else config.tail_turns,
        preserve_recent_tokens=config.preserve_recent_tokens,
    )


def usable_context(limits: llm.ModelLimits, *, reserved: int | None = None, output_cap: int = OUTPUT_TOKEN_MAX) -> int:
    """How many tokens the conversation may use before it must be compacted.

    The two branches reserve differently on purpose (OpenCode's tests assert it): a model with an input
    limit keeps `reserved` (default min(20 000, max output)) free; one without keeps its full max output.
    """
    max_output = max_output_tokens(limits, output_cap)
    if limits.input:
        keep = reserved if reserved is not None else min(RESERVED_CAP, max_output)
        return max(0, limits.input - keep)
    return max(0, limits.context - max_output)


def compact_at(
    limits: llm.ModelLimits, settings: CompactionSettings | None = None, *, output_cap: int = OUTPUT_TOKEN_MAX
) -> int | None:
    """The token count at which a step's conversation overflows; None: never (auto off, or the context unknown)."""
    settings = settings or CompactionSettings()
    if not settings.auto or limits.context == 0:
        return None
    return usable_context(limits, reserved=settings.reserved, output_cap=output_cap)


def is_overflow(
    tokens: Tokens,
    limits: llm.ModelLimits,
    settings: CompactionSettings | None = None,
    *,
    output_cap: int = OUTPUT_TOKEN_MAX,
) -> bool:
    """Whether the last step's token count has reached the usable context."""
    limit = compact_at(limits, settings, output_cap=output_cap)
    return limit is not None and tokens.count >= limit


def estimate_tokens(text: str) -> int:
    """OpenCode's estimate: a token is about four characters (halves round up, as JavaScript's Math.round)."""
    return (len(text) + 2) // 4


def overflow_note() -> str:
    """What the model is told before carrying on after an overflow: attachments were left out of the summary."""
    return read_prompt("compaction/overflow_note.txt").rstrip("\n")


def summary_prompt(previous_summary: str | None) -> str:
    anchor = UPDATE_ANCHOR.format(previous=previous_summary) if previous_summary else NEW_ANCHOR
    return f"{anchor}\n\n{read_prompt('compaction/summary_template.txt')}"


def tail_budget(settings: CompactionSettings, limits: llm.ModelLimits) -> int:
    """Tokens the verbatim tail may take: configured, else a quarter of the usable context within 2k-8k."""
    if settings.preserve_recent_tokens is not None:
        return settings.preserve_recent_tokens
    return min(max(usable_context(limits, reserved=settings.reserved) // 4, 2_000), 8_000)


def estimate_messages(messages: Sequence[MessageWithParts], model: llm.ModelInfo) -> int:
    """OpenCode's size of a history: a quarter of the length of its model messages as JSON."""
    return estimate_tokens(json.dumps(unstructure(to_model_messages(messages, model)), separators=(",", ":")))


def _is_turn_start(message: MessageWithParts) -> bool:
    return isinstance(message.info, UserMessage) and not any(isinstance(p, CompactionPart) for p in message.parts)


def select_tail(history: Sequence[MessageWithParts], model: llm.ModelInfo, *, turns: int, budget: int) -> int | None:
    """Where the verbatim tail starts (an index into `history`), or None for no tail.

    The newest `turns` turns are kept whole while they fit `budget`; the first that does not fit keeps its
    longest fitting suffix instead, and the walk stops there. The head (what gets summarised) is never left
    empty: a tail that would swallow the whole history is dropped.
    """
    starts = [i for i, message in enumerate(history) if _is_turn_start(message)]
    if turns <= 0 or not starts:
        return None
    tail_start: int | None = None
    used = 0
    ends = [*starts[1:], len(history)]
    for start, end in list(zip(starts, ends, strict=True))[-turns:][::-1]:
        size = estimate_messages(history[start:end], model)
        if used + size <= budget:
            used, tail_start = used + size, start
            continue
        for cut in range(start + 1, end):
            if used + estimate_messages(history[cut:end], model) <= budget:
                tail_start = cut
                break
        break
    return tail_start if tail_start else None


def previous_summary(history: Sequence[MessageWithParts]) -> str | None:
    """The text of the newest completed summary in the history, trimmed parts joined by blank lines."""
    for message in reversed(history):
        info = message.info
        if isinstance(info, AssistantMessage) and info.summary and info.finish and info.error is None:
            texts = [p.text.strip() for p in message.parts if isinstance(p, TextPart) and p.text.strip()]
            return "\n\n".join(texts)
    return None


def without_previous_compactions(history: Sequence[MessageWithParts]) -> list[MessageWithParts]:
    """History minus compaction requests and their summaries: the summary goes into the prompt instead."""
    requests = {m.info.id for m in history if any(isinstance(p, CompactionPart) for p in m.parts)}
    return [
        m
        for m in history
        if m.info.id not in requests and not (isinstance(m.info, AssistantMessage) and m.info.summary)
    ]


def _replay_index(history: Sequence[MessageWithParts]) -> int | None:
    return next((i for i in range(len(history) - 1, -1, -1) if _is_turn_start(history[i])), None)


@define
class CompactionService:
    store: SessionStore
    bus: Bus
    agents: Agents
    models: llm.ModelResolver
    processor: Processor
    clock: Clock
    ids: Ids

    async def create(
        self, session_id: str, agent: str, model: ModelRef, *, auto: bool, overflow: bool = False
    ) -> MessageWithParts:
        """Record a compaction request for the loop to process."""
        created = MessageTime(self.clock.now_ms())
        info = UserMessage(id=self.ids.new("msg"), session_id=session_id, time=created, agent=agent, model=model)
        part = CompactionPart(
            id=self.ids.new("prt"), session_id=session_id, message_id=info.id, auto=auto, overflow=overflow or None
        )
        await self.store.put_message(info)
        await self.store.put_part(part)
        self.bus.message_updated(info)
        self.bus.part_updated(part)
        return MessageWithParts(info, [part])

    async def process(
        self,
        request: MessageWithParts,
        history: Sequence[MessageWithParts],
        user_model: llm.LanguageModel,
        settings: CompactionSettings,
        path: PathInfo,
    ) -> LoopStep:
        """Summarise `history` (the filtered history, `request` last) for the compaction `request`."""
        info = request.info
        part = next((p for p in request.parts if isinstance(p, CompactionPart)), None)
        if not isinstance(info, UserMessage) or part is None:
            raise ValueError(f"Compaction parent must be a user message: {info.id}")
        agent = await self.agents.get(COMPACTION_AGENT)
        if agent is None:
            raise LookupError(f'Agent not found: "{COMPACTION_AGENT}"')
        model = self.models.resolve(agent.model.ref) if agent.model else user_model
        earlier = [m for m in history if m.info.id != info.id]
        summary_of = previous_summary(earlier)
        earlier = without_previous_compactions(earlier)
        replay = _replay_index(earlier) if part.overflow else None
        if replay == 0:
            replay = None  # nothing before it to summarise: summarise everything instead
        candidates = earlier[:replay] if replay is not None else earlier
        tail = select_tail(
            candidates, model.info, turns=settings.tail_turns, budget=tail_budget(settings, model.info.limits)
        )
        head = candidates[:tail] if tail is not None else candidates
        ref = ModelRef(model.info.provider_id, model.info.id)
        message = AssistantMessage.answering(
            info, agent.name, ref, path, self.ids.new("msg"), self.clock.now_ms(), summary=True
        )
        step = self._step(message, model, agent, head, summary_of, info.session_id)
        result = (await self.processor.process(step)).result
        if result is StepEnd.COMPACT:
            await self._too_large(message, replay is not None)
            return StepEnd.STOP
        if tail is not None:
            part.tail_start_id = candidates[tail].info.id
            await self.store.put_part(part)
        if message.error is not None:
            return StepEnd.STOP
        if part.auto:
            await self._carry_on(info, earlier[replay] if replay is not None else None, bool(part.overflow))
        self.bus.publish(SessionCompacted(info.session_id))
        return StepEnd.CONTINUE

    async def prune(self, session_id: str, settings: CompactionSettings) -> int:
        """Mark old tool outputs compacted when `compaction.prune` is on; the number of parts marked."""
        if not settings.prune:
            return 0
        messages = await self.store.messages(session_id)
        chosen = set(prune_candidates(messages))
        now = self.clock.now_ms()
        for message in messages:
            for part in message.parts:
                if part.id in chosen and isinstance(part, ToolPart) and isinstance(part.state, ToolStateCompleted):
                    part.state.time.compacted = now
                    await self.store.put_part(part)
        return len(chosen)

    def _step(
        self,
        message: AssistantMessage,
        model: llm.LanguageModel,
        agent: AgentInfo,
        head: Sequence[MessageWithParts],
        summary_of: str | None,
        session_id: str,
    ) -> StepInput:
        messages = to_model_messages(
            head, model.info, strip_media=True, tool_output_max_chars=SUMMARY_TOOL_OUTPUT_MAX_CHARS
        )
        prompt = llm.UserModelMessage((llm.TextContent(summary_prompt(summary_of)),))
        request = llm.ModelRequest(system=(agent.prompt or "",), messages=(*messages, prompt), session_id=session_id)
        # A summary never runs tools (the processor refuses calls); the context only satisfies the step's shape.
        context = ToolContext(
            session_id=session_id,
            message_id=message.id,
            call_id="",
            agent=agent.name,
            ruleset=agent.permission,
            directory=Path(message.path.cwd),
            worktree=Path(message.path.root),
        )
        return StepInput(message=message, model=model, request=request, tools={}, tool_context=context)

    async def still_too_large(self, message: AssistantMessage) -> None:
        """Record that a step overflowed right after a compaction, which compacting again would only repeat."""
        await self._record_overflow(message, STILL_TOO_LARGE)

    async def _too_large(self, message: AssistantMessage, replaying: bool) -> None:
        await self._record_overflow(message, REPLAY_TOO_LARGE if replaying else SESSION_TOO_LARGE)

    async def _record_overflow(self, message: AssistantMessage, text: str) -> None:
        message.error = MessageError(CONTEXT_OVERFLOW_ERROR, text)
        message.finish = "error"
        await self.store.put_message(message)
        self.bus.message_updated(message)
        self.bus.publish(SessionError(message.session_id, message.error))

    async def _carry_on(self, request: UserMessage, replay: MessageWithParts | None, overflow: bool) -> None:
        if replay is not None:
            await self._replay(replay)
            return
        text = f"{overflow_note()}\n\n{CONTINUE_TEXT}" if overflow else CONTINUE_TEXT
        info = evolve(request, id=self.ids.new("msg"), time=MessageTime(self.clock.now_ms()))
        part = TextPart(
            id=self.ids.new("prt"),
            session_id=info.session_id,
            message_id=info.id,
            text=text,
            synthetic=True,
            metadata={"compaction_continue": True},
        )
        await self._put_user(info, [part])

    async def _replay(self, original: MessageWithParts) -> None:
        assert isinstance(original.info, UserMessage)
        info = evolve(original.info, id=self.ids.new("msg"), time=MessageTime(self.clock.now_ms()))
        parts = [_replayed(part, info.id, self.ids.new("prt")) for part in original.parts]
        await self._put_user(info, parts)

    async def _put_user(self, info: UserMessage, parts: Sequence[Part]) -> None:
        await self.store.put_message(info)
        self.bus.message_updated(info)
        for part in parts:
            await self.store.put_part(part)
            self.bus.part_updated(part)


def _replayed(part: Part, message_id: str, new_id: str) -> Part:
    if isinstance(part, FilePart) and is_media(part.mime):
        name = part.filename if part.filename is not None else "file"
        return TextPart(
            id=new_id, session_id=part.session_id, message_id=message_id, text=f"[Attached {part.mime}: {name}]"
        )
    return evolve(part, id=new_id, message_id=message_id)
