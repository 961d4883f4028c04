"""`open_runtime` as the one override surface: each keyword replaces one service for that runtime, one clock
for every time and id."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import define, field
from custom_tools import RecordingTool

from strata_core import ids, llm
from strata_core.clock import FrozenClock
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ToolPart, ToolStateCompleted
from strata_core.permission.approval import approve_all
from strata_core.runtime import RuntimeOptionsError, open_runtime
from strata_core.session.memory_store import MemorySessionStore
from strata_providers.testing import ScriptedModel

pytestmark = pytest.mark.anyio


async def test_sessions_stored_under_a_repository_s_path_id_move_to_its_root_commit(tmp_path: Path) -> None:
    from strata_core.project import root_commit

    project, env = _setup(tmp_path)
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    await anyio.run_process(["git", "init", "-q"], cwd=project)
    await anyio.run_process(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=project, env={**env, **who})
    database = tmp_path / "sessions.db"
    async with open_runtime(project, env, store=database, models=OneModel(ScriptedModel())) as runtime:
        old = await runtime.sessions.create()
        path_id = runtime.project.path_id
        assert path_id is not None and runtime.project.id == root_commit(project) != path_id
        old.project_id = path_id  # as a Strata before the root-commit ids stored it
        await runtime.store.put_session(old)
    async with open_runtime(project, env, store=database, models=OneModel(ScriptedModel())) as runtime:
        assert [s.id for s in await runtime.sessions.list_sessions()] == [old.id]
        assert await runtime.store.list_sessions(path_id) == []


async def test_a_postgresql_url_by_keyword_or_variable_opens_the_shared_store(
    tmp_path: Path, postgres_url: str
) -> None:
    from strata_core.session import PostgresSessionStore

    project, env = _setup(tmp_path)
    async with open_runtime(project, env, store=postgres_url, models=OneModel(ScriptedModel())) as runtime:
        assert isinstance(runtime.store, PostgresSessionStore)
        session = await runtime.sessions.create()
    shared_env = {**env, "STRATA_DATABASE_URL": postgres_url}
    async with open_runtime(project, shared_env, models=OneModel(ScriptedModel())) as runtime:
        assert isinstance(runtime.store, PostgresSessionStore)
        assert await runtime.store.get_session(session.id) == session


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


def _weather_tool(name: str = "weather") -> RecordingTool:
    """A custom tool of the embedding application."""
    return RecordingTool(name, "city", "Today's weather in a city.", "Sunny in {}")


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return project, env


def _databases(tmp_path: Path) -> list[Path]:
    return sorted(tmp_path.rglob("strata.db*"))


async def test_a_store_passed_by_keyword_is_used_and_no_database_is_created(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    async with MemorySessionStore.open() as store:
        async with open_runtime(project, env, store=store, models=OneModel(ScriptedModel())) as runtime:
            session = await runtime.sessions.create()
        assert [s.id for s in await store.list_sessions()] == [session.id]
    assert _databases(tmp_path) == []


async def test_a_store_path_keyword_opens_sqlite_there_and_the_default_is_the_data_directory(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    resolver = OneModel(ScriptedModel())
    async with open_runtime(project, env, models=resolver, store=tmp_path / "mine.db") as runtime:
        await runtime.sessions.create()
    assert (tmp_path / "mine.db").is_file() and not (tmp_path / "data" / "strata" / "strata.db").exists()
    async with open_runtime(project, env, models=resolver) as first:
        session = await first.sessions.create()
    async with open_runtime(project, env, models=resolver) as second:
        assert [s.id for s in await second.sessions.list_sessions()] == [session.id]  # the same SQLite file
        assert second.loop is not first.loop
    assert (tmp_path / "data" / "strata" / "strata.db").is_file()


async def test_a_resolver_passed_as_models_is_used_and_a_factory_is_given_the_shared_client(
    tmp_path: Path,
) -> None:
    project, env = _setup(tmp_path)
    resolver = OneModel(ScriptedModel())
    async with open_runtime(project, env, store="memory", models=resolver) as runtime:
        assert runtime.models is resolver and runtime.container.targets().models is resolver
    built: list[Any] = []

    def factory(config: Any, environment: Mapping[str, str], client: Any) -> llm.ModelResolver:
        built.append(client())
        return resolver

    async with open_runtime(project, env, store="memory", models=factory) as runtime:
        assert runtime.models is resolver
        assert built == [runtime.container.http_client()] and built[0] is not None


async def test_a_frozen_clock_fixes_the_prompt_date_record_times_and_the_time_of_every_id(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    clock = FrozenClock.at(datetime(2030, 2, 3, 9, 30, tzinfo=UTC))
    model = ScriptedModel([{"text": "Hello."}])
    async with open_runtime(project, env, models=OneModel(model), store="memory", clock=clock) as runtime:
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


async def _ids_of_one_turn(tmp_path: Path) -> list[str]:
    project, env = _setup(tmp_path)
    clock = FrozenClock(1_900_000_000_000)
    model = ScriptedModel([{"text": "Hello."}])
    async with open_runtime(
        project, env, models=OneModel(model), store="memory", clock=clock, id_entropy=ids.seeded_entropy(7)
    ) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        history = await runtime.sessions.messages(session.id)
    return [session.id, *(m.info.id for m in history), *(p.id for m in history for p in m.parts)]


async def test_a_frozen_clock_and_seeded_entropy_make_every_id_reproducible(tmp_path: Path) -> None:
    first = await _ids_of_one_turn(tmp_path / "one")
    second = await _ids_of_one_turn(tmp_path / "two")

    assert first == second
    assert first[0] == ids.Ids(FrozenClock(1_900_000_000_000), ids.seeded_entropy(7)).new("ses")


async def test_custom_tools_are_offered_to_the_model_and_run(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    weather = _weather_tool()
    model = ScriptedModel(
        [{"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}, {"text": "It is sunny in Oslo."}]
    )
    async with open_runtime(
        project, env, models=OneModel(model), store="memory", tools=[weather], approver=approve_all
    ) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(PromptRequest(session.id, [TextInput("weather in Oslo?")]))
        history = await runtime.sessions.messages(session.id)

    offered = {tool.name for tool in model.main_requests[0].tools}
    assert "weather" in offered and "read" in offered  # beside the built-ins
    assert weather.calls == ["Oslo"]
    calls = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [(c.tool, type(c.state)) for c in calls] == [("weather", ToolStateCompleted)]
    assert isinstance(calls[0].state, ToolStateCompleted) and calls[0].state.output == "Sunny in Oslo"


async def test_a_custom_tool_named_like_a_built_in_replaces_it(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    mine = _weather_tool("read")
    async with open_runtime(project, env, models=OneModel(ScriptedModel()), store="memory", tools=[mine]) as runtime:
        registry = runtime.container.registry()
        assert registry.get("read") is mine
        assert registry.names.count("read") == 1


async def test_contradicting_or_missing_options_are_refused_with_what_to_pass(tmp_path: Path) -> None:
    project, env = _setup(tmp_path)
    with pytest.raises(
        RuntimeOptionsError, match='store= takes a SessionStore, a Path, a postgresql:// URL or "memory"'
    ):
        async with open_runtime(project, env, store="disk", models=OneModel(ScriptedModel())):
            pass
    with pytest.raises(RuntimeOptionsError, match="needs a model resolver: pass models="):
        open_runtime(project, env, store="memory")


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
    async with open_runtime(project, env, models=OneModel(model), store="memory", url_fetcher=fetcher) as runtime:
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
        async with open_runtime(project, env, models=OneModel(model), store="memory"):
            raise LookupError("not in the plan")
