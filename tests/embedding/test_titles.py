"""Titles go to `title_model=`: a resolver the embedder passes is never asked for one it did not choose, and
closing the runtime grants a slow title only `background_grace` seconds."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from attrs import define, field

from strata_core import llm
from strata_core.context.agent import AgentInfo
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.engine.title import same_model
from strata_core.runtime import open_runtime
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio


async def test_a_resolver_passed_as_models_gets_no_title_request_unless_title_model_says_where(tmp_path: Path) -> None:
    main = ScriptedModel([{"text": "Hello."}])
    small = ScriptedModel([], info=llm.ModelInfo("scripted", "small"), title_text="Greeting")
    env = {"HOME": str(tmp_path)}
    async with open_runtime(tmp_path, env, models=ScriptedResolver(main, small=small), store="memory") as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert main.title_requests == [] and small.title_requests == []

    titled = ScriptedModel([{"text": "Hello."}], title_text="Greeting")
    resolver = ScriptedResolver(titled)
    async with open_runtime(tmp_path, env, models=resolver, store="memory", title_model=same_model) as rt:
        session = await rt.sessions.create()
        await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        await rt.loop.ended(session.id)
    assert len(titled.title_requests) == 1


@define
class HangingTitles:
    """A title model that never answers, and says when its call was cancelled."""

    info: llm.ModelInfo = field(factory=lambda: llm.ModelInfo("slow", "titles"))
    cancelled: anyio.Event = field(factory=anyio.Event)

    @asynccontextmanager
    async def stream(self, request: llm.ModelRequest) -> AsyncIterator[AsyncIterator[llm.StreamEvent]]:
        try:
            await anyio.sleep_forever()
        finally:
            self.cancelled.set()
        yield _nothing()  # pragma: no cover


async def _nothing() -> AsyncIterator[llm.StreamEvent]:  # pragma: no cover
    return
    yield


async def test_closing_cancels_a_title_still_on_its_way_after_the_grace(tmp_path: Path) -> None:
    titles = HangingTitles()

    def to_the_slow_model(agent: AgentInfo, user_model: llm.LanguageModel) -> llm.LanguageModel:
        return titles

    model = ScriptedModel([{"text": "Hello."}])
    env = {"HOME": str(tmp_path)}
    with anyio.fail_after(30):  # a guard against hanging, not a measurement
        async with open_runtime(
            tmp_path,
            env,
            models=ScriptedResolver(model),
            store="memory",
            title_model=to_the_slow_model,
            background_grace=0,
        ) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert titles.cancelled.is_set()
