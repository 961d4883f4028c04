"""Request assembly helpers: the per-run history conversion cache gives exactly the uncached result."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from attrs import evolve
from engine_fakes import HistoryBuilder

from strata_core import llm
from strata_core.engine.turn_request import ConvertedHistory
from strata_core.history import to_model_messages
from strata_core.message import MessageWithParts, TextPart
from strata_core.session.memory_store import MemorySessionStore

MODEL = llm.ModelInfo("fake", "fake-model")


@pytest.fixture
async def history() -> AsyncIterator[list[MessageWithParts]]:
    async with MemorySessionStore.open() as store:
        build = HistoryBuilder(store)
        first = await build.user("read two files")
        await build.assistant(first, "Reading.", tools=[("read", "one"), ("read", "two")])
        await build.assistant(first, "Both read.")
        second = await build.user("and now?")
        await build.assistant(second, "Done.")
        yield await store.messages("ses_1")


@pytest.mark.anyio
async def test_cached_conversion_equals_converting_the_whole_history(history: list[MessageWithParts]) -> None:
    cache = ConvertedHistory()
    assert cache.convert(history, MODEL) == to_model_messages(history, MODEL)
    assert cache.convert(history[:3], MODEL) == to_model_messages(history[:3], MODEL)
    other = llm.ModelInfo("other", "model")
    assert cache.convert(history, other) == to_model_messages(history, other)


@pytest.mark.anyio
async def test_a_changed_copy_of_a_message_is_converted_again(history: list[MessageWithParts]) -> None:
    cache = ConvertedHistory()
    cache.convert(history, MODEL)
    last_user = history[3]
    first = last_user.parts[0]
    assert isinstance(first, TextPart)
    reminded = MessageWithParts(last_user.info, [*last_user.parts, evolve(first, id="prt_x", text="extra")])
    changed = [*history[:3], reminded, history[4]]
    assert cache.convert(changed, MODEL) == to_model_messages(changed, MODEL)
    assert cache.convert(history, MODEL) == to_model_messages(history, MODEL)


@pytest.mark.anyio
async def test_a_history_that_grows_step_by_step_converts_as_a_whole(history: list[MessageWithParts]) -> None:
    cache = ConvertedHistory()
    for end in range(1, len(history) + 1):  # each step: the last step's messages and one more
        assert cache.convert(history[:end], MODEL) == to_model_messages(history[:end], MODEL)
    last_user = history[3]
    first = last_user.parts[0]
    assert isinstance(first, TextPart)
    edited = MessageWithParts(last_user.info, [evolve(first, text="edited")])
    grown = [*history[:3], edited, *history[4:], history[0]]
    assert cache.convert(grown, MODEL) == to_model_messages(grown, MODEL)
