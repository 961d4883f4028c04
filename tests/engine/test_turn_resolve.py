"""`loop.resolve`: the one decision of a prompt's agent and model, the one `prompt` itself stores."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from engine_fakes import FakeResolver

from strata_core import llm
from strata_core.bus import Bus, SessionError
from strata_core.engine.loop import AgentNotFoundError, TurnChoice
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ModelRef, UserMessage
from strata_core.runtime import Runtime, open_runtime
from strata_providers.testing import ScriptedModel

pytestmark = pytest.mark.anyio

DEFAULT = llm.ModelInfo("mock", "default-model")
REVIEWER = llm.ModelInfo("mock", "review-model", variants={"high": {"reasoningEffort": "high"}})


@pytest.fixture
async def runtime(tmp_path: Path) -> AsyncIterator[Runtime]:
    project = tmp_path / "project"
    project.mkdir()
    review = {"mode": "primary", "model": REVIEWER.ref, "variant": "high"}
    (project / "strata.json").write_text(json.dumps({"agent": {"review": review}}))
    models = {info.ref: ScriptedModel([{"text": "ok"}] * 4, info=info) for info in (DEFAULT, REVIEWER)}
    env = {"HOME": str(tmp_path / "home")}
    async with open_runtime(project, env, models=FakeResolver(models), store="memory") as opened:
        yield opened


async def test_a_new_session_gets_the_default_agent_and_model(runtime: Runtime) -> None:
    resolved = await runtime.loop.resolve(TurnChoice(None))
    assert (resolved.agent.name, resolved.model, resolved.info) == ("build", ModelRef("mock", "default-model"), DEFAULT)
    assert resolved.variant is None


async def test_an_agents_own_model_brings_its_variant_unless_one_is_asked_for(runtime: Runtime) -> None:
    own = await runtime.loop.resolve(TurnChoice(None, agent="review"))
    assert (own.model, own.info) == (ModelRef("mock", "review-model", "high"), REVIEWER)
    asked = await runtime.loop.resolve(TurnChoice(None, agent="review", model=DEFAULT.ref))
    assert asked.model == ModelRef("mock", "default-model") and asked.variant is None


async def test_what_resolve_decides_is_what_prompt_stores_and_a_session_inherits(runtime: Runtime) -> None:
    session = await runtime.sessions.create()
    request = PromptRequest(session.id, [TextInput("hi")], agent="review")
    decided = await runtime.loop.resolve(TurnChoice.of(request))
    await runtime.loop.prompt(request)
    (user,) = [m.info for m in await runtime.store.messages(session.id) if isinstance(m.info, UserMessage)]
    assert (user.agent, user.model) == (decided.agent.name, decided.model)
    # The next prompt to this session, naming nothing, runs on the session's last model.
    inherited = await runtime.loop.resolve(TurnChoice(session.id))
    assert (inherited.agent.name, inherited.model) == ("build", user.model)


async def test_what_does_not_resolve_is_raised_and_reported_for_the_session(runtime: Runtime) -> None:
    session = await runtime.sessions.create()
    async with runtime.bus.subscribe() as events:
        with pytest.raises(AgentNotFoundError, match=r'Agent not found: "nope"\. Available agents: build'):
            await runtime.loop.resolve(TurnChoice(session.id, agent="nope"))
        with pytest.raises(llm.ModelNotFoundError):
            await runtime.loop.resolve(TurnChoice(session.id, model="mock/missing"))
        with pytest.raises(llm.ModelNotFoundError):
            await runtime.loop.resolve(TurnChoice(None, model="mock/missing"))  # no session: nothing to report to
        reported = [event for event in Bus.waiting(events) if isinstance(event, SessionError)]
    assert [event.session_id for event in reported] == [session.id, session.id]
    assert await runtime.store.messages(session.id) == []
