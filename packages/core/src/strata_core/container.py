"""`CoreContainer`: the core's services as dependency-injector providers, declarations only.

What the core cannot make itself is a `Dependency`: the session store, the model resolver, the project id
(known once the project is discovered), the loaded config, and the task group background work runs in.
`open_runtime()` supplies them; an application or a test overrides any provider before first use. No
constructor here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from dependency_injector import containers, providers

from strata_core.bus import Bus
from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigInfo, ConfigService
from strata_core.context.agent import AgentService
from strata_core.context.instruction import InstructionService
from strata_core.context.project import ProjectService
from strata_core.context.skill import SkillService
from strata_core.engine.compaction import CompactionService
from strata_core.engine.loop import SessionLoop
from strata_core.engine.parameters import BasicParameters
from strata_core.engine.part_writer import wall_clock_ms
from strata_core.engine.plan_mode import PlanMode
from strata_core.engine.processor import Processor
from strata_core.engine.subagent import LoopSubagents
from strata_core.engine.subtask import SubtaskRunner
from strata_core.engine.title import TitleService
from strata_core.engine.turn_request import TurnRequestBuilder
from strata_core.permission.flow import PermissionFlow
from strata_core.prompt.system import SystemClock, SystemPromptService
from strata_core.session.service import SessionService
from strata_core.tool.builtin.bash import DEFAULT_HIDDEN_ENV
from strata_core.tool.builtin.defaults import builtin_tools
from strata_core.tool.builtin.plan_exit import plan_exit_tool
from strata_core.tool.builtin.todowrite import InMemoryTodoStore
from strata_core.tool.registry import ToolRegistry
from strata_core.tool.runner import run_call
from strata_core.tool.truncation import Truncation


def _later(container: Any, name: str) -> Callable[[], Any]:
    """A provider of the container, to be called when needed (breaks the loop -> tools -> task -> loop cycle)."""
    provider: Callable[[], Any] = getattr(container, name)
    return provider


class CoreContainer(containers.DeclarativeContainer):
    __self__ = providers.Self()

    # -- supplied from outside ------------------------------------------------------------------------
    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    store: providers.Dependency[Any] = providers.Dependency()
    """A `SessionStore`, opened by the runtime."""
    models: providers.Dependency[Any] = providers.Dependency()
    """The `llm.ModelResolver` (the providers' catalogue, or a scripted model in tests)."""
    project_id: providers.Dependency[str] = providers.Dependency(instance_of=str)
    config_info: providers.Dependency[ConfigInfo] = providers.Dependency(instance_of=ConfigInfo, default=ConfigInfo())
    """The loaded config, for what is built synchronously from it (tool output limits); the runtime supplies it."""
    background: providers.Dependency[Any] = providers.Dependency()
    """Where titles and prune run: the runtime's task group."""
    parameters: providers.Provider[Any] = providers.Singleton(BasicParameters)
    permission_mode: providers.Provider[str] = providers.Object("interactive")
    now: providers.Provider[Any] = providers.Object(wall_clock_ms)
    today: providers.Provider[Any] = providers.Singleton(SystemClock)
    todos: providers.Provider[Any] = providers.Singleton(InMemoryTodoStore)
    url_fetcher: providers.Provider[Any] = providers.Object(None)
    """The instruction `UrlFetcher`; None means the default HTTP fetcher."""
    hidden_env: providers.Provider[Any] = providers.Object(DEFAULT_HIDDEN_ENV)
    """Variables shell commands must not see: the API keys' (the composition root adds its catalogue's)."""

    # -- the project and its configuration -------------------------------------------------------------
    paths = providers.Singleton(StrataPaths.from_env, env)
    project = providers.Singleton(ProjectService, directory)
    config = providers.Singleton(ConfigService, paths=paths, project=project, env=env)
    skills = providers.Singleton(SkillService, config=config, project=project, paths=paths, env=env)
    instructions = providers.Singleton(
        InstructionService, config=config, project=project, paths=paths, env=env, fetcher=url_fetcher
    )
    agents = providers.Singleton(
        AgentService, config=config, paths=paths, skill_dirs=skills.provided.dirs, project=project
    )
    system_prompt = providers.Singleton(
        SystemPromptService, project=project, instructions=instructions, skills=skills, clock=today
    )

    # -- sessions, events, permissions -----------------------------------------------------------------
    bus = providers.Singleton(Bus)
    permissions = providers.Singleton(PermissionFlow, bus=bus, mode=permission_mode)
    sessions = providers.Singleton(
        SessionService, store=store, project_id=project_id, directory=providers.Callable(str, directory), clock=now
    )

    # -- tools -----------------------------------------------------------------------------------------
    truncation = providers.Singleton(Truncation.configured, paths, config_info.provided.tool_output)
    plan_exit = providers.Singleton(
        plan_exit_tool,
        env=env,
        permission_mode=permission_mode,
        permissions=permissions,
        store=store,
        bus=bus,
        project=project,
        paths=paths,
        now=now,
    )
    """Experimental plan mode's tool, or None when it is not offered (`plan_exit_offered`)."""
    subagents = providers.Singleton(
        LoopSubagents,
        sessions=sessions,
        agents=agents,
        config=config,
        loop=providers.Callable(_later, __self__, "loop"),
    )
    tools = providers.Singleton(
        builtin_tools,
        truncation=truncation,
        skills=skills,
        agents=agents,
        subagents=subagents,
        instructions=instructions,
        todos=todos,
        hidden_env=hidden_env,
        plan_exit=plan_exit,
    )
    registry = providers.Singleton(ToolRegistry, tools=tools)
    execute_tool = providers.Singleton(partial, run_call, truncation=truncation)

    # -- the engine ------------------------------------------------------------------------------------
    processor = providers.Singleton(
        Processor, store=store, bus=bus, permissions=permissions, execute_tool=execute_tool, now=now
    )
    title = providers.Singleton(TitleService, store=store, bus=bus, agents=agents, models=models, parameters=parameters)
    compaction = providers.Singleton(
        CompactionService, store=store, bus=bus, agents=agents, models=models, processor=processor, now=now
    )
    requests = providers.Singleton(
        TurnRequestBuilder, system_prompt=system_prompt, registry=registry, parameters=parameters
    )
    subtasks = providers.Singleton(SubtaskRunner, store=store, bus=bus, execute_tool=execute_tool, now=now)
    plan_mode = providers.Singleton(PlanMode, store=store, bus=bus, project=project, paths=paths, env=env)
    loop = providers.Singleton(
        SessionLoop,
        store=store,
        sessions=sessions,
        bus=bus,
        agents=agents,
        models=models,
        config=config,
        project=project,
        requests=requests,
        processor=processor,
        compaction=compaction,
        title=title,
        instructions=instructions,
        registry=registry,
        subtasks=subtasks,
        background=background,
        plan_mode=plan_mode,
        env=env,
        now=now,
    )
