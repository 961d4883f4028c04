"""Testing an application built on Strata: each test overrides one provider for the length of a `with
overrides(...)` block, the application's own `open_runtime(...)` call unchanged, and checks that a runtime
opened after the block has Strata's default again. Run it with pytest: `pytest examples/test_app_with_overrides.py`.

The three providers a test most often replaces: the clock (a frozen one), the session store (in memory, nothing
on disk) and the HTTP transport (an `httpx.MockTransport` answering the project's instruction URL).
"""

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from attrs import frozen

from strata_core import FrozenClock, MemorySessionStore, PromptRequest, Runtime, TextInput, open_runtime, overrides
from strata_core.llm import ModelResolver
from strata_core.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio

RULES_URL = "https://rules.example/team.md"

# ---------------------------------------------------------------------------------------------------------
# The application under test (in a real one, its own module): one question, asked in a runtime of its own on
# Strata's defaults: SQLite under HOME, the system clock, an HTTP client the runtime opens.


@frozen
class Asked:
    answer: str
    asked_at: int
    """When the question was stored, in ms since the epoch, by the runtime's clock."""
    store: type


async def ask(project: Path, question: str, models: ModelResolver) -> Asked:
    async with open_runtime(project, {"HOME": str(project / "home")}, models=models) as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput(question)]))
        question_message = (await rt.sessions.messages(session.id))[0]
        return Asked(answer.text, question_message.info.time.created, type(rt.store))


# ---------------------------------------------------------------------------------------------------------
# The tests


def answering(text: str) -> ScriptedResolver:
    return ScriptedResolver(ScriptedModel([{"text": text}]))


async def fresh_runtime(project: Path) -> Runtime:
    """A runtime opened (and closed) outside any `overrides` block: what the defaults are again."""
    async with open_runtime(project, {"HOME": str(project / "home")}, models=answering("unused")) as rt:
        return rt


async def test_a_frozen_clock_dates_what_the_app_stores(tmp_path: Path) -> None:
    clock = FrozenClock.at(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    with overrides(clock=clock):
        asked = await ask(tmp_path, "what day is it?", answering("Sunday."))
    assert asked.asked_at == clock.ms
    assert not isinstance((await fresh_runtime(tmp_path)).clock, FrozenClock)


async def test_a_memory_store_leaves_nothing_on_disk(tmp_path: Path) -> None:
    database = tmp_path / "home" / ".local" / "share" / "strata" / "strata.db"
    with overrides(store="memory"):
        asked = await ask(tmp_path, "hello?", answering("Hello."))
    assert (asked.answer, asked.store, database.exists()) == ("Hello.", MemorySessionStore, False)
    assert not isinstance((await fresh_runtime(tmp_path)).store, MemorySessionStore)
    assert database.exists()  # the default again: SQLite under HOME


async def test_a_mock_transport_answers_the_instruction_url(tmp_path: Path) -> None:
    (tmp_path / "strata.json").write_text(json.dumps({"instructions": [RULES_URL]}))
    fetched: list[str] = []

    def team_rules(request: httpx.Request) -> httpx.Response:
        fetched.append(str(request.url))
        return httpx.Response(200, text="Write tests first.")

    model = ScriptedModel([{"text": "Tests first, then."}])
    async with httpx.AsyncClient(transport=httpx.MockTransport(team_rules)) as client:
        with overrides(http_client=client):
            await ask(tmp_path, "how do we work?", ScriptedResolver(model))
        assert fetched == [RULES_URL]
        assert "Write tests first." in model.main_requests[0].system[0]
        assert (await fresh_runtime(tmp_path)).container.http_client() is not client
