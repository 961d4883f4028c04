"""Session titles: asked once per root session, from the first real user message (reference 10)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from attrs import evolve
from engine_fakes import FakeAgents, FakeModel, FakeResolver, text_step

from strata_core import llm
from strata_core.bus import Bus, TitleUpdated
from strata_core.context.agent import AgentInfo
from strata_core.engine.parameters import BasicParameters
from strata_core.engine.title import TitleService, catalogue_titles, clean_title
from strata_core.message import MessageTime, ModelRef, SubtaskPart, TextPart, UserMessage
from strata_core.session.memory_store import MemorySessionStore
from strata_core.session_info import SessionInfo, SessionTime

DEFAULT_TITLE = "New session - 2026-01-02T03:04:05.678Z"
TITLE_AGENT = AgentInfo(
    name="title", mode="primary", permission=(), hidden=True, prompt="You name things.", temperature=0.5
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Fix the flaky test\nmore", "Fix the flaky test"),
        ("\n\n   Leading blanks  \n", "Leading blanks"),
        ("<think>hmm\nlet me see</think>\nReal title", "Real title"),
        ("x" * 101, "x" * 97 + "..."),
        ("x" * 100, "x" * 100),
        ("<think>only thinking</think>", None),
        ("", None),
    ],
)
def test_clean_title(raw: str, expected: str | None) -> None:
    assert clean_title(raw) == expected


@pytest.fixture
async def store() -> AsyncIterator[MemorySessionStore]:
    async with MemorySessionStore.open() as store:
        yield store


async def _session(store: MemorySessionStore, *, title: str = DEFAULT_TITLE, parent: str | None = None) -> None:
    await store.put_session(
        SessionInfo(
            id="ses_1",
            project_id="p",
            directory="/tmp",
            title=title,
            version="0",
            time=SessionTime(created=1, updated=1),
            parent_id=parent,
        )
    )


async def _user(store: MemorySessionStore, message_id: str, text: str, *, synthetic: bool = False) -> None:
    info = UserMessage(
        id=message_id, session_id="ses_1", time=MessageTime(1), agent="build", model=ModelRef("fake", "fake-model")
    )
    await store.put_message(info)
    await store.put_part(
        TextPart(id=f"prt_{message_id}", session_id="ses_1", message_id=message_id, text=text, synthetic=synthetic)
    )


def _service(store: MemorySessionStore, bus: Bus, resolver: FakeResolver) -> TitleService:
    return TitleService(store, bus, FakeAgents({"title": TITLE_AGENT}), catalogue_titles(resolver), BasicParameters())


@pytest.mark.anyio
async def test_the_small_model_titles_the_session_from_the_first_message(store: MemorySessionStore) -> None:
    await _session(store)
    await _user(store, "msg_1", "why does my fixture run twice?")
    user_model = FakeModel([])
    small = FakeModel([text_step("<think>x</think> Fixture runs twice")])
    small.info = llm.ModelInfo("fake", "fake-small")
    bus = Bus()
    async with bus.subscribe() as events:
        title = await _service(store, bus, FakeResolver({}, small=small)).generate("ses_1", user_model)
        assert events.receive_nowait() == TitleUpdated("ses_1", "Fixture runs twice")
    assert title == "Fixture runs twice"
    session = await store.get_session("ses_1")
    assert session is not None and session.title == title
    (request,) = small.requests
    assert request.small and request.system == ("You name things.",) and request.tools == ()
    assert request.temperature == 0.5
    first, second = request.messages
    assert first == llm.UserModelMessage((llm.TextContent("Generate a title for this conversation:\n"),))
    assert second == llm.UserModelMessage((llm.TextContent("why does my fixture run twice?"),))
    assert user_model.requests == []


@pytest.mark.anyio
async def test_without_a_small_model_the_users_model_is_asked(store: MemorySessionStore) -> None:
    await _session(store)
    await _user(store, "msg_1", "hello")
    user_model = FakeModel([text_step("Greeting")])
    assert await _service(store, Bus(), FakeResolver({})).generate("ses_1", user_model) == "Greeting"


@pytest.mark.anyio
@pytest.mark.parametrize("case", ["child", "renamed", "second_turn", "only_synthetic"])
async def test_no_title_is_asked_when_the_session_does_not_need_one(store: MemorySessionStore, case: str) -> None:
    await _session(
        store, title="My own title" if case == "renamed" else DEFAULT_TITLE, parent="ses_0" if case == "child" else None
    )
    await _user(store, "msg_1", "first", synthetic=case == "only_synthetic")
    if case == "second_turn":
        await _user(store, "msg_3", "second")
    model = FakeModel([])
    assert await _service(store, Bus(), FakeResolver({})).generate("ses_1", model) is None
    assert model.requests == []


@pytest.mark.anyio
async def test_a_subtask_only_message_is_titled_from_its_prompts(store: MemorySessionStore) -> None:
    await _session(store)
    info = UserMessage(
        id="msg_1", session_id="ses_1", time=MessageTime(1), agent="build", model=ModelRef("fake", "fake-model")
    )
    await store.put_message(info)
    for index, prompt in enumerate(["review the diff", "check the tests"]):
        await store.put_part(
            SubtaskPart(
                id=f"prt_{index}",
                session_id="ses_1",
                message_id="msg_1",
                prompt=prompt,
                description="d",
                agent="general",
            )
        )
    model = FakeModel([text_step("Review")])
    await _service(store, Bus(), FakeResolver({})).generate("ses_1", model)
    assert model.requests[0].messages[1] == llm.UserModelMessage((llm.TextContent("review the diff\ncheck the tests"),))


@pytest.mark.anyio
async def test_a_failing_title_call_is_only_logged(store: MemorySessionStore) -> None:
    await _session(store)
    await _user(store, "msg_1", "hello")
    model = FakeModel([[llm.StreamFailed(llm.ServerError("boom", status=500))]])
    assert await _service(store, Bus(), FakeResolver({})).generate("ses_1", model) is None
    session = await store.get_session("ses_1")
    assert session is not None and session.title == DEFAULT_TITLE


@pytest.mark.anyio
async def test_a_configured_title_agent_model_wins(store: MemorySessionStore) -> None:
    await _session(store)
    await _user(store, "msg_1", "hello")
    configured = FakeModel([text_step("From configured")])
    agents = FakeAgents({"title": evolve(TITLE_AGENT, model=ModelRef("other", "titler"))})
    service = TitleService(
        store,
        Bus(),
        agents,
        catalogue_titles(FakeResolver({"other/titler": configured}, small=FakeModel([]))),
        BasicParameters(),
    )
    assert await service.generate("ses_1", FakeModel([])) == "From configured"
