"""`open_runtime` as the one override surface: each keyword an override, the caller's own overrides kept,
the caller's container never changed, one clock for every time and id."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from attrs import define, field
from dependency_injector import providers

from strata_core import ids, llm
from strata_core.clock import FrozenClock
from strata_core.container import CoreContainer
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ToolPart, ToolStateCompleted
from strata_core.runtime import RuntimeOptionsError, open_runtime
from strata_core.session.memory_store import MemorySessionStore
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget
from strata_providers.testing import ScriptedModel

pytestmark = pytest.mark.anyio


@define
class OneModel:
    """A model resolver that knows one model: the scripted one."""

    model: ScriptedModel

    def resolve(self, ref: str) -> llm.LanguageModel:
        if ref != self.model.info.ref:
            raise llm.ModelNotFoundError(f"Model not found: {ref}.")
        return self.model

    def default_model(self) -> llm.LanguageModel:
        return self.model

    def small_model(self, provider_id: str) -> llm.LanguageModel | None:
        return None


@define
class WeatherTool:
    """A custom tool of the embedding application."""

    name: str = "weather"
    cities: list[str] = field(factory=list)

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

    async def description(self, target: ToolTarget) -> str:
        return "Today's weather in a city."

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        return ToolPermission(self.name, (args["city"],))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.cities.append(args["city"])
        return ToolResult(f"Sunny in {args['city']}", title=args["city"])


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return project, env


def _databases(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.rglob("strata.db*"))


async def test_a_store_the_caller_overrode_is_used_and_no_database_is_created(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    container = CoreContainer()
    container.models.override(providers.Object(OneModel(ScriptedModel())))
    async with MemorySessionStore.open() as store:
        container.store.override(providers.Object(store))
        async with open_runtime(project, env, container=container) as runtime:
            assert runtime.store is store
            session = await runtime.sessions.create()
        assert await store.get_session(session.id) == session  # the runtime did not close the caller's store
    assert _databases(tmp_path) == []
    assert not (tmp_path / "home" / ".local" / "share" / "strata").exists()


async def test_a_store_passed_by_keyword_is_used_and_no_database_is_created(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    async with MemorySessionStore.open() as store:
        async with open_runtime(project, env, store=store, models=OneModel(ScriptedModel())) as runtime:
            session = await runtime.sessions.create()
        assert [s.id for s in await store.list_sessions()] == [session.id]
    assert _databases(tmp_path) == []


async def test_the_same_container_opens_two_runtimes_in_turn_and_is_left_as_it_was(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    container = CoreContainer()
    container.models.override(providers.Object(OneModel(ScriptedModel())))
    async with open_runtime(project, env, container=container) as first:
        session = await first.sessions.create()
    async with open_runtime(project, env, container=container) as second:
        assert [s.id for s in await second.sessions.list_sessions()] == [session.id]  # the same SQLite file
        assert second.loop is not first.loop and second.container is not container
    for supplied_by_the_runtime in ("store", "project_id", "config_info", "background", "directory", "env"):
        assert getattr(container, supplied_by_the_runtime).last_overriding is None, supplied_by_the_runtime
    assert (tmp_path / "data" / "strata" / "strata.db").is_file()


async def test_a_models_override_on_the_container_wins_over_the_factory(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    resolver = OneModel(ScriptedModel())
    container = CoreContainer()
    container.models.override(providers.Object(resolver))

    def factory(*args: Any) -> llm.ModelResolver:
        raise AssertionError("the factory must not replace the caller's resolver")

    async with open_runtime(
        project, env, in_memory_store=True, model_resolver_factory=factory, container=container
    ) as runtime:
        assert runtime.models is resolver
        assert runtime.loop.models is resolver and runtime.container.title().models is resolver


async def test_a_frozen_clock_fixes_the_prompt_date_record_times_and_the_time_of_every_id(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    clock = FrozenClock.at(datetime(2030, 2, 3, 9, 30, tzinfo=UTC))
    model = ScriptedModel([{"text": "Hello."}])
    async with open_runtime(project, env, models=OneModel(model), in_memory_store=True, clock=clock) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        history = await runtime.sessions.messages(session.id)

    assert "  Today's date: Sun Feb 03 2030\n" in model.main_requests[0].system[0]
    assert session.time.created == clock.ms
    assert [message.info.time.created for message in history] == [clock.ms, clock.ms]
    made = [session.id, *(m.info.id for m in history), *(p.id for m in history for p in m.parts)]
    assert len(made) > 4 and len(set(made)) == len(made)
    assert {ids.time_part(identifier) for identifier in made} == {clock.ms % ids.TIME_PART_MODULUS}
    assert made[1:3] == sorted(made[1:3])  # standing still, the clock still gives ascending ids


async def _ids_of_one_turn(tmp_path: Path, container: CoreContainer) -> list[str]:
    project, env = _setup(tmp_path)
    clock = FrozenClock(1_900_000_000_000)
    model = ScriptedModel([{"text": "Hello."}])
    async with open_runtime(
        project, env, models=OneModel(model), in_memory_store=True, clock=clock, container=container
    ) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        history = await runtime.sessions.messages(session.id)
    return [session.id, *(m.info.id for m in history), *(p.id for m in history for p in m.parts)]


async def test_a_frozen_clock_and_seeded_entropy_make_every_id_reproducible(tmp_path: Path) -> None:
    container = CoreContainer()
    container.id_entropy.override(providers.Callable(ids.seeded_entropy, 7))  # a fresh sequence per runtime

    first = await _ids_of_one_turn(tmp_path / "one", container)
    second = await _ids_of_one_turn(tmp_path / "two", container)

    assert first == second
    assert first[0] == ids.Ids(FrozenClock(1_900_000_000_000), ids.seeded_entropy(7)).new("ses")


async def test_custom_tools_are_offered_to_the_model_and_run(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    weather = WeatherTool()
    model = ScriptedModel(
        [{"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}, {"text": "It is sunny in Oslo."}]
    )
    async with open_runtime(
        project, env, models=OneModel(model), in_memory_store=True, tools=[weather], permission_mode="auto"
    ) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("weather in Oslo?")]))
        history = await runtime.sessions.messages(session.id)

    offered = {tool.name for tool in model.main_requests[0].tools}
    assert "weather" in offered and "read" in offered  # beside the built-ins
    assert weather.cities == ["Oslo"]
    calls = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [(c.tool, type(c.state)) for c in calls] == [("weather", ToolStateCompleted)]
    assert isinstance(calls[0].state, ToolStateCompleted) and calls[0].state.output == "Sunny in Oslo"


async def test_a_custom_tool_named_like_a_built_in_replaces_it(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    mine = WeatherTool(name="read")
    async with open_runtime(
        project, env, models=OneModel(ScriptedModel()), in_memory_store=True, tools=[mine]
    ) as runtime:
        registry = runtime.container.registry()
        assert registry.get("read") is mine
        assert registry.names.count("read") == 1


async def test_contradicting_or_missing_options_are_refused_with_what_to_pass(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    async with MemorySessionStore.open() as store:
        with pytest.raises(RuntimeOptionsError, match="either store= or"):
            open_runtime(project, env, store=store, in_memory_store=True, models=OneModel(ScriptedModel()))
    with pytest.raises(RuntimeOptionsError, match="needs a model resolver: pass models="):
        open_runtime(project, env, in_memory_store=True)


async def test_a_clock_overridden_on_the_container_is_used_and_a_clock_keyword_wins_over_it(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    mine, theirs = FrozenClock(1_900_000_000_000), FrozenClock(2_000_000_000_000)
    container = CoreContainer()
    container.clock.override(providers.Object(mine))
    resolver = OneModel(ScriptedModel())
    async with open_runtime(project, env, models=resolver, in_memory_store=True, container=container) as runtime:
        assert runtime.clock is mine and (await runtime.sessions.create()).time.created == mine.ms
    async with open_runtime(
        project, env, models=resolver, in_memory_store=True, clock=theirs, container=container
    ) as runtime:
        assert runtime.clock is theirs and (await runtime.sessions.create()).time.created == theirs.ms
    assert container.clock() is mine  # the keyword went to the runtime's copy only


@define
class CannedFetcher:
    asked: list[str] = field(factory=list)

    async def get_text(self, url: str) -> str:
        self.asked.append(url)
        return "Rules from the canned fetcher."


async def test_a_url_fetcher_keyword_fetches_the_instruction_urls(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    (project / "strata.json").write_text('{"instructions": ["https://rules.invalid/team.md"]}')
    fetcher = CannedFetcher()
    model = ScriptedModel([{"text": "ok"}])
    async with open_runtime(project, env, models=OneModel(model), in_memory_store=True, url_fetcher=fetcher) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
    assert fetcher.asked == ["https://rules.invalid/team.md"]
    assert (
        "Instructions from: https://rules.invalid/team.md\nRules from the canned fetcher."
        in (model.main_requests[0].system[0])
    )


async def test_an_error_raised_in_the_runtime_block_leaves_it_as_raised(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    model = ScriptedModel([{"text": "Hello."}])
    with pytest.raises(LookupError, match="not in the plan"):
        async with open_runtime(project, env, models=OneModel(model), in_memory_store=True):
            raise LookupError("not in the plan")
