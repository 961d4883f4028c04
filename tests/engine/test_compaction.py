"""Compaction: the request, the summary of the head, the kept tail, carrying on, and prune (reference 9)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from engine_fakes import (
    IDS,
    FakeAgents,
    FakeModel,
    FakeResolver,
    HistoryBuilder,
    plain_executor,
    stored_message,
    text_step,
)

from strata_core import llm
from strata_core.bus import Bus, SessionCompacted
from strata_core.clock import SystemClock
from strata_core.config.schema import CompactionConfig
from strata_core.context.agent import AgentInfo
from strata_core.engine.compaction import (
    CONTINUE_TEXT,
    NEW_ANCHOR,
    SESSION_TOO_LARGE,
    CompactionService,
    CompactionSettings,
    compaction_settings,
    select_tail,
)
from strata_core.engine.processor import StepProcessor
from strata_core.history import filter_compacted
from strata_core.message import (
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageWithParts,
    ModelRef,
    PathInfo,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    UserMessage,
)
from strata_core.permission.flow import PermissionFlow
from strata_core.session.memory_store import MemorySessionStore
from strata_core.texts import read_prompt

COMPACTION = AgentInfo(name="compaction", mode="primary", permission=(), hidden=True, prompt="You summarise sessions.")
MODEL = ModelRef("fake", "fake-model")
PATH = PathInfo("/tmp", "/")


@pytest.fixture
async def store() -> AsyncIterator[MemorySessionStore]:
    async with MemorySessionStore.open() as store:
        yield store


def _service(store: MemorySessionStore, bus: Bus | None = None) -> CompactionService:
    bus = bus or Bus()
    processor = StepProcessor(store, bus, PermissionFlow(IDS), plain_executor, SystemClock(), IDS)
    agents = FakeAgents({"compaction": COMPACTION})
    return CompactionService(store, bus, agents, FakeResolver({}), processor, SystemClock(), IDS)


async def _process(
    store: MemorySessionStore, service: CompactionService, model: FakeModel, settings: CompactionSettings
) -> str:
    history = filter_compacted(await store.messages("ses_1"))
    request = history[-1]
    return await service.process(request, history, model, settings, PATH)


def _texts(message: MessageWithParts) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def test_settings_follow_config_and_the_disable_switches() -> None:
    config = CompactionConfig(auto=True, prune=True, tail_turns=3, preserve_recent_tokens=500, reserved=10)
    assert compaction_settings(config, {}) == CompactionSettings(True, True, 10, 3, 500)
    disabled = compaction_settings(config, {"OPENCODE_DISABLE_AUTOCOMPACT": "1", "OPENCODE_DISABLE_PRUNE": "true"})
    assert (disabled.auto, disabled.prune) == (False, False)
    assert compaction_settings(CompactionConfig(), {}) == CompactionSettings()


@pytest.mark.anyio
async def test_create_records_a_user_message_with_a_compaction_part(store: MemorySessionStore) -> None:
    created = await _service(store).create("ses_1", "build", MODEL, auto=True, overflow=True)
    stored = await stored_message(store, "ses_1", created.info.id)
    assert stored is not None and isinstance(stored.info, UserMessage)
    (part,) = stored.parts
    assert isinstance(part, CompactionPart) and part.auto and part.overflow


@pytest.mark.anyio
async def test_process_refuses_a_parent_that_is_not_a_compaction_request(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    await history.user("hello")
    messages = await store.messages("ses_1")
    with pytest.raises(ValueError, match="Compaction parent must be a user message"):
        await _service(store).process(messages[0], messages, FakeModel([]), CompactionSettings(), PATH)


@pytest.mark.anyio
async def test_manual_compaction_summarises_everything_without_a_tail(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    first = await history.user("set up the project")
    await history.assistant(first, "done", tools=[("bash", "x" * 5_000)])
    bus = Bus()
    service = _service(store, bus)
    await service.create("ses_1", "build", MODEL, auto=False)
    model = FakeModel([text_step("## Goal\n- set up")])
    async with bus.subscribe() as events:
        assert await _process(store, service, model, CompactionSettings(tail_turns=0)) == "continue"
        published = [events.receive_nowait() for _ in range(events.statistics().current_buffer_used)]
    assert SessionCompacted("ses_1") in published
    (request,) = model.requests
    assert request.system == ("You summarise sessions.",) and request.tools == ()
    last = request.messages[-1]
    assert isinstance(last, llm.UserModelMessage)
    prompt = last.content[0]
    assert isinstance(prompt, llm.TextContent)
    assert prompt.text == NEW_ANCHOR + "\n\n" + read_prompt("compaction/summary_template.txt")
    tool_message = request.messages[2]
    assert isinstance(tool_message, llm.ToolModelMessage)
    assert tool_message.content[0].output.text.endswith("[Tool output truncated for compaction: omitted 3000 chars]")
    messages = await store.messages("ses_1")
    summary = messages[-1].info
    assert isinstance(summary, AssistantMessage) and summary.summary and summary.agent == "compaction"
    # Manual: nothing is added after the summary, and the model's view now starts at the request.
    view = filter_compacted(messages)
    assert [m.info.role for m in view] == ["user", "assistant"]


@pytest.mark.anyio
async def test_auto_compaction_keeps_the_recent_tail_and_adds_the_continue_message(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    old = await history.user("old request " + "o" * 4_000)
    await history.assistant(old, "old answer " + "a" * 4_000)
    recent = await history.user("recent request")
    await history.assistant(recent, "recent answer")
    service = _service(store)
    created = await service.create("ses_1", "build", MODEL, auto=True)
    model = FakeModel([text_step("summary text")])
    assert (
        await _process(store, service, model, CompactionSettings(tail_turns=2, preserve_recent_tokens=200))
        == "continue"
    )
    # Only the old turn was summarised.
    (request,) = model.requests
    sent = [
        c.text
        for m in request.messages
        if isinstance(m, llm.UserModelMessage)
        for c in m.content
        if isinstance(c, llm.TextContent)
    ]
    assert sent[0].startswith("old request") and not any("recent request" in text for text in sent)
    stored = await stored_message(store, "ses_1", created.info.id)
    assert stored is not None
    assert isinstance(stored.parts[0], CompactionPart) and stored.parts[0].tail_start_id == recent
    view = filter_compacted(await store.messages("ses_1"))
    assert [_texts(m)[:1] for m in view] == [
        [],
        ["summary text"],
        ["recent request"],
        ["recent answer"],
        [CONTINUE_TEXT],
    ]
    continue_part = view[-1].parts[0]
    assert isinstance(continue_part, TextPart) and continue_part.synthetic
    assert continue_part.metadata == {"compaction_continue": True}


@pytest.mark.anyio
async def test_a_second_compaction_is_anchored_on_the_previous_summary(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    service = _service(store)
    first = await history.user("first task")
    await history.assistant(first, "first answer")
    await service.create("ses_1", "build", MODEL, auto=False)
    await _process(store, service, FakeModel([text_step("FIRST SUMMARY")]), CompactionSettings(tail_turns=0))
    second = await history.user("second task")
    await history.assistant(second, "second answer")
    await service.create("ses_1", "build", MODEL, auto=False)
    model = FakeModel([text_step("SECOND SUMMARY")])
    await _process(store, service, model, CompactionSettings(tail_turns=0))
    sent = model.requests[0].messages
    prompt = sent[-1]
    assert isinstance(prompt, llm.UserModelMessage) and isinstance(prompt.content[0], llm.TextContent)
    assert "<previous-summary>\nFIRST SUMMARY\n</previous-summary>" in prompt.content[0].text
    # The old request/summary pair is not in the summarised history itself.
    assert all("What did we do so far?" not in str(m) for m in sent[:-1])


@pytest.mark.anyio
async def test_on_overflow_the_last_user_message_is_replayed_with_media_as_text(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    earlier = await history.user("earlier")
    await history.assistant(earlier, "earlier answer")

    def image(message_id: str) -> FilePart:
        return FilePart(
            id="prt_img",
            session_id="ses_1",
            message_id=message_id,
            mime="image/png",
            url="data:image/png;base64,AA",
            filename="shot.png",
        )

    await history.user("look at this", parts=[image])
    service = _service(store)
    await service.create("ses_1", "build", MODEL, auto=True, overflow=True)
    model = FakeModel([text_step("summary")])
    assert await _process(store, service, model, CompactionSettings(tail_turns=0)) == "continue"
    sent = str(model.requests[0].messages)
    assert "earlier" in sent and "look at this" not in sent
    replayed = (await store.messages("ses_1"))[-1]
    assert _texts(replayed) == ["look at this", "[Attached image/png: shot.png]"]


@pytest.mark.anyio
async def test_after_an_overflow_with_nothing_to_replay_the_model_is_told_attachments_were_left_out(
    store: MemorySessionStore,
) -> None:
    history = HistoryBuilder(store)
    only = await history.user("look at this")
    await history.assistant(only, "looking")
    service = _service(store)
    await service.create("ses_1", "build", MODEL, auto=True, overflow=True)
    outcome = await _process(store, service, FakeModel([text_step("summary")]), CompactionSettings(tail_turns=0))
    assert outcome == "continue"
    note = read_prompt("compaction/overflow_note.txt").rstrip("\n")
    assert note.startswith("The last request did not fit in the model's context window")
    assert _texts((await store.messages("ses_1"))[-1]) == [f"{note}\n\n{CONTINUE_TEXT}"]


@pytest.mark.anyio
async def test_a_summary_request_that_overflows_stops_with_context_overflow(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    await history.user("huge")
    service = _service(store)
    await service.create("ses_1", "build", MODEL, auto=True)
    model = FakeModel([[llm.StreamFailed(llm.ContextOverflowError("prompt is too long"))]])
    assert await _process(store, service, model, CompactionSettings(tail_turns=0)) == "stop"
    summary = (await store.messages("ses_1"))[-1].info
    assert isinstance(summary, AssistantMessage) and summary.finish == "error"
    assert summary.error is not None and (summary.error.name, summary.error.message) == (
        "ContextOverflowError",
        SESSION_TOO_LARGE,
    )
    assert len(model.requests) == 1


@pytest.mark.anyio
async def test_select_tail_splits_a_turn_that_does_not_fit_and_never_empties_the_head(
    store: MemorySessionStore,
) -> None:
    history = HistoryBuilder(store)
    first = await history.user("a" * 400)
    await history.assistant(first, "b" * 400)
    second = await history.user("c" * 400)
    await history.assistant(second, "small")
    messages = await store.messages("ses_1")
    info = llm.ModelInfo("fake", "fake-model")
    assert select_tail(messages, info, turns=2, budget=10_000) is None  # both turns fit: the head would be empty
    assert select_tail(messages, info, turns=2, budget=160) == 2  # only the newest turn fits
    assert select_tail(messages, info, turns=2, budget=30) == 3  # only its answer fits
    assert select_tail(messages, info, turns=2, budget=1) is None
    assert select_tail(messages, info, turns=0, budget=10_000) is None


@pytest.mark.anyio
async def test_prune_is_opt_in_and_clears_old_outputs_except_skills(store: MemorySessionStore) -> None:
    history = HistoryBuilder(store)
    old = await history.user("old")
    await history.assistant(old, tools=[("skill", "s" * 100_000), ("read", "r" * 100_000), ("read", "q" * 100_000)])
    for text in ("two", "three"):
        await history.assistant(await history.user(text), "ok")
    service = _service(store)
    assert await service.prune("ses_1", CompactionSettings()) == 0
    assert await service.prune("ses_1", CompactionSettings(prune=True)) >= 1
    tools = [p for m in await store.messages("ses_1") for p in m.parts if isinstance(p, ToolPart)]
    compacted = {
        p.state.output[0]: p.state.time.compacted is not None for p in tools if isinstance(p.state, ToolStateCompleted)
    }
    # Newest first: q is within the protected 40k tokens, r is beyond it, the skill output is never pruned.
    assert compacted == {"s": False, "r": True, "q": False}
