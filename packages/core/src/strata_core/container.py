"""The core's services as dependency-injector providers, in four parts composed by `CoreContainer`.

- `PromptContainer`: what the system prompt is assembled from (paths, project, config, skills,
  instructions, agents, the system prompt). It needs only a directory: an application can build it alone,
  with no store and no model, and call `system_prompt()`.
- `SessionsContainer`: the store, the session service, the event bus and the permission flow.
- `ToolsContainer`: truncation, the built-in tools plus the caller's custom ones, the registry, the runner.
- `EngineContainer`: processor, title, compaction, subtasks, the request builder, the turn loop, and the
  `SecretOutputs` (clear outputs of secret files shown this process) the processor keeps and the builder sends.

`CoreContainer` holds what they share (directory, env, the one `Clock` and the `Ids` made from it, the
store, the model resolver, ...) and re-exports each part's services under their own names
(`core.loop`, `core.agents`, ...), so overriding `core.project` overrides the project every part uses.

What the core cannot make itself is a `Dependency`, typed with its protocol: the session store, the model
resolver, the project id (known once the project is discovered), the loaded config, and where background
work runs. `open_runtime()` supplies them on its own copy of the container; an application or a test
overrides any provider before first use. Declarations only: no constructor here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from strata_core import llm
from strata_core.bus import Bus
from strata_core.clock import Clock, SystemClock
from strata_core.config.paths import StrataPaths
from strata_core.config.service import Config, ConfigInfo, ConfigService
from strata_core.context.agent import Agents, AgentService
from strata_core.context.command_services import command_prompts, command_service
from strata_core.context.instruction import Instruction, InstructionService, UrlFetcher
from strata_core.context.project import Project, ProjectService
from strata_core.context.skill import Skills, SkillService
from strata_core.engine.compaction import CompactionService
from strata_core.engine.loop import SessionLoop, Spawner
from strata_core.engine.parameters import BasicParameters, ParameterPolicy
from strata_core.engine.plan_mode_switch import plan_exit_if_offered, plan_mode_if_enabled
from strata_core.engine.processor import Processor
from strata_core.engine.subagent import LoopSubagents
from strata_core.engine.subtask import SubtaskRunner
from strata_core.engine.title import TitleService
from strata_core.engine.tool_calls import ToolExecutor
from strata_core.engine.turn_request import TurnRequestBuilder
from strata_core.ids import Entropy, Ids, random_base62
from strata_core.permission.flow import PermissionFlow, PermissionMode
from strata_core.prompt.system import SystemPromptService
from strata_core.secret_outputs import SecretOutputs
from strata_core.session.service import SessionService
from strata_core.session.store import SessionStore
from strata_core.tool.builtin.bash import DEFAULT_HIDDEN_ENV
from strata_core.tool.builtin.defaults import builtin_tools
from strata_core.tool.builtin.todowrite import InMemoryTodoStore, TodoStore
from strata_core.tool.contract import Tool
from strata_core.tool.registry import ToolRegistry, ToolSource, with_custom_tools
from strata_core.tool.runner import run_call
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    from strata_core.context.command import CommandSource


def _later(container: containers.Container, name: str) -> Callable[[], SessionLoop]:
    """A provider of the container, called when needed (breaks the loop -> tools -> task -> loop cycle)."""
    provider: Callable[[], SessionLoop] = getattr(container, name)
    return provider


class PromptContainer(containers.DeclarativeContainer):
    """What the system prompt is assembled from, for one directory; needs no store, no model, no runtime."""

    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    clock: providers.Provider[Clock] = providers.Singleton(SystemClock)
    """Only `today()` is read here: the environment block's date."""
    url_fetcher: providers.Provider[UrlFetcher | None] = providers.Object(None)
    """The instruction `UrlFetcher`; None means the default HTTP fetcher."""

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
        SystemPromptService, project=project, instructions=instructions, skills=skills, clock=clock
    )
    command_sources: providers.Provider[Sequence[CommandSource]] = providers.Object(())
    """Run-time command sources: the runtime puts the MCP servers (their prompts) here when the config has any."""
    commands = providers.Singleton(
        command_service, config=config, project=project, skills=skills, sources=command_sources
    )
    command_prompts = providers.Singleton(
        command_prompts, commands=commands, agents=agents, project=project, paths=paths
    )


class SessionsContainer(containers.DeclarativeContainer):
    """Sessions of one project, the events they publish, and the permission questions they ask."""

    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    store: providers.Dependency[SessionStore] = providers.Dependency()
    project_id: providers.Dependency[str] = providers.Dependency(instance_of=str)
    clock: providers.Dependency[Clock] = providers.Dependency()
    ids: providers.Dependency[Ids] = providers.Dependency()
    project: providers.Dependency[Project | None] = providers.Dependency(default=None)
    """Where a new session records its `path` from (the worktree); None records none."""
    permission_mode: providers.Provider[PermissionMode] = providers.Object("interactive")

    bus = providers.Singleton(Bus)
    permissions = providers.Singleton(PermissionFlow, bus=bus, ids=ids, mode=permission_mode)
    sessions = providers.Singleton(
        SessionService,
        store=store,
        project_id=project_id,
        directory=providers.Callable(str, directory),
        clock=clock,
        ids=ids,
        bus=bus,
        project=project,
    )


class ToolsContainer(containers.DeclarativeContainer):
    """The tools a session may use: the built-ins and the caller's custom tools, and how a call is run."""

    paths: providers.Dependency[StrataPaths] = providers.Dependency(instance_of=StrataPaths)
    project_id: providers.Dependency[str] = providers.Dependency(instance_of=str)
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    """The runtime's environment: where the shell sandbox reads `STRATA_SANDBOX` (`--sandbox`)."""
    config_info: providers.Dependency[ConfigInfo] = providers.Dependency(instance_of=ConfigInfo, default=ConfigInfo())
    """The loaded config, for what is built synchronously from it (tool output limits, the sandbox)."""
    config: providers.Dependency[Config] = providers.Dependency()
    skills: providers.Dependency[Skills] = providers.Dependency()
    agents: providers.Dependency[Agents] = providers.Dependency()
    instructions: providers.Dependency[Instruction] = providers.Dependency()
    sessions: providers.Dependency[SessionService] = providers.Dependency()
    clock: providers.Dependency[Clock] = providers.Dependency()
    ids: providers.Dependency[Ids] = providers.Dependency()
    loop: providers.Dependency[Callable[[], SessionLoop]] = providers.Dependency()
    """Gives the session loop when a task runs (the loop itself needs these tools)."""
    todos: providers.Provider[TodoStore] = providers.Singleton(InMemoryTodoStore)
    hidden_env: providers.Provider[Collection[str]] = providers.Object(DEFAULT_HIDDEN_ENV)
    """Variables shell commands must not see: the API keys' (the composition root adds its catalogue's)."""
    custom_tools: providers.Provider[Sequence[Tool]] = providers.Object(())
    """Tools of the application, offered alongside the built-ins (`open_runtime(..., tools=[...])`)."""
    tool_sources: providers.Provider[Sequence[ToolSource]] = providers.Object(())
    """Tools known once something has started: the runtime puts the MCP servers here when configured."""
    plan_exit: providers.Dependency[Tool | None] = providers.Dependency(default=None)
    """Experimental plan mode's tool, or None when it is not offered (`plan_exit_offered`)."""

    truncation = providers.Singleton(Truncation.configured, paths, project_id, config_info, clock, ids)
    subagents = providers.Singleton(LoopSubagents, sessions=sessions, agents=agents, config=config, loop=loop)
    builtins = providers.Singleton(
        builtin_tools,
        truncation=truncation,
        skills=skills,
        agents=agents,
        subagents=subagents,
        instructions=instructions,
        todos=todos,
        hidden_env=hidden_env,
        plan_exit=plan_exit,
        sandbox=config_info.provided.blocks.sandbox,
        config_env=config_info.provided.env_names,
        env=env,
        paths=paths,
    )
    tools = providers.Singleton(with_custom_tools, builtins, custom_tools)
    registry = providers.Singleton(ToolRegistry, tools=tools, sources=tool_sources)
    execute_tool: providers.Provider[ToolExecutor] = providers.Singleton(partial, run_call, truncation=truncation)


class EngineContainer(containers.DeclarativeContainer):
    """The turn: one model step, titles, compaction, subtasks, the request for a step, and the loop."""

    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    store: providers.Dependency[SessionStore] = providers.Dependency()
    models: providers.Dependency[llm.ModelResolver] = providers.Dependency()
    background: providers.Dependency[Spawner | None] = providers.Dependency()
    """Where titles and prune run: the runtime's task group."""
    parameters: providers.Dependency[ParameterPolicy] = providers.Dependency()
    clock: providers.Dependency[Clock] = providers.Dependency()
    ids: providers.Dependency[Ids] = providers.Dependency()
    bus: providers.Dependency[Bus] = providers.Dependency()
    permissions: providers.Dependency[PermissionFlow] = providers.Dependency()
    sessions: providers.Dependency[SessionService] = providers.Dependency()
    project: providers.Dependency[Project] = providers.Dependency()
    paths: providers.Dependency[StrataPaths] = providers.Dependency(instance_of=StrataPaths)
    config: providers.Dependency[Config] = providers.Dependency()
    agents: providers.Dependency[Agents] = providers.Dependency()
    instructions: providers.Dependency[Instruction] = providers.Dependency()
    system_prompt: providers.Dependency[SystemPromptService] = providers.Dependency()
    registry: providers.Dependency[ToolRegistry] = providers.Dependency()
    execute_tool: providers.Dependency[ToolExecutor] = providers.Dependency()

    secret_outputs = providers.Singleton(SecretOutputs)
    processor = providers.Singleton(
        Processor, store, bus, permissions, execute_tool, clock, ids, secrets=secret_outputs
    )
    title = providers.Singleton(TitleService, store=store, bus=bus, agents=agents, models=models, parameters=parameters)
    compaction = providers.Singleton(
        CompactionService,
        store=store,
        bus=bus,
        agents=agents,
        models=models,
        processor=processor,
        clock=clock,
        ids=ids,
    )
    requests = providers.Singleton(TurnRequestBuilder, system_prompt, registry, parameters, ids, secrets=secret_outputs)
    subtasks = providers.Singleton(SubtaskRunner, store=store, bus=bus, execute_tool=execute_tool, clock=clock, ids=ids)
    plan_mode = providers.Singleton(
        plan_mode_if_enabled, store=store, bus=bus, project=project, paths=paths, env=env, ids=ids
    )
    """Experimental plan mode's service, or None while the flag is off."""
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
        clock=clock,
        ids=ids,
        background=background,
        plan_mode=plan_mode,
        env=env,
    )


class CoreContainer(containers.DeclarativeContainer):
    """The whole core for one project directory: the four parts, wired to each other."""

    __self__ = providers.Self()

    # -- supplied from outside (open_runtime's keywords override these) --------------------------------
    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    store: providers.Dependency[SessionStore] = providers.Dependency()
    """A `SessionStore`: the runtime opens SQLite (or memory) unless this is overridden."""
    models: providers.Dependency[llm.ModelResolver] = providers.Dependency()
    """The model resolver (the providers' catalogue, or a scripted model in tests)."""
    project_id: providers.Dependency[str] = providers.Dependency(instance_of=str)
    config_info: providers.Dependency[ConfigInfo] = providers.Dependency(instance_of=ConfigInfo, default=ConfigInfo())
    """The loaded config, for what is built synchronously from it; the runtime supplies it."""
    background: providers.Dependency[Spawner | None] = providers.Dependency()
    """Where titles and prune run: the runtime's task group."""
    parameters: providers.Provider[ParameterPolicy] = providers.Singleton(BasicParameters)
    permission_mode: providers.Provider[PermissionMode] = providers.Object("interactive")
    clock: providers.Provider[Clock] = providers.Singleton(SystemClock)
    """The one source of time: record times, ids, the prompt's date, tool-output retention."""
    id_entropy: providers.Provider[Entropy] = providers.Object(random_base62)
    """The random tail of ids (`ids.seeded_entropy(n)` makes them reproducible)."""
    url_fetcher: providers.Provider[UrlFetcher | None] = providers.Object(None)
    todos: providers.Provider[TodoStore] = providers.Singleton(InMemoryTodoStore)
    hidden_env: providers.Provider[Collection[str]] = providers.Object(DEFAULT_HIDDEN_ENV)
    custom_tools: providers.Provider[Sequence[Tool]] = providers.Object(())
    tool_sources: providers.Provider[Sequence[ToolSource]] = providers.Object(())
    """Run-time tool sources: the runtime puts the MCP servers here when the config has any."""
    command_sources: providers.Provider[Sequence[CommandSource]] = providers.Object(())
    """Run-time command sources: the MCP servers again, for their prompts."""

    ids = providers.Singleton(Ids, clock=clock, entropy=id_entropy)

    # -- the parts -------------------------------------------------------------------------------------
    prompt_part = providers.Container(
        PromptContainer,
        directory=directory,
        env=env,
        clock=clock,
        url_fetcher=url_fetcher,
        command_sources=command_sources,
    )
    sessions_part = providers.Container(
        SessionsContainer,
        directory=directory,
        store=store,
        project_id=project_id,
        clock=clock,
        ids=ids,
        project=prompt_part.project,
        permission_mode=permission_mode,
    )
    plan_exit = providers.Singleton(
        plan_exit_if_offered,
        env=env,
        permission_mode=permission_mode,
        permissions=sessions_part.permissions,
        store=store,
        bus=sessions_part.bus,
        project=prompt_part.project,
        paths=prompt_part.paths,
        clock=clock,
        ids=ids,
    )
    """Experimental plan mode's tool, or None when it is not offered (`plan_exit_offered`)."""

    tools_part = providers.Container(
        ToolsContainer,
        paths=prompt_part.paths,
        project_id=project_id,
        env=env,
        config_info=config_info,
        config=prompt_part.config,
        skills=prompt_part.skills,
        agents=prompt_part.agents,
        instructions=prompt_part.instructions,
        sessions=sessions_part.sessions,
        clock=clock,
        ids=ids,
        loop=providers.Callable(_later, __self__, "loop"),
        todos=todos,
        hidden_env=hidden_env,
        custom_tools=custom_tools,
        tool_sources=tool_sources,
        plan_exit=plan_exit,
    )
    engine_part = providers.Container(
        EngineContainer,
        env=env,
        store=store,
        models=models,
        background=background,
        parameters=parameters,
        clock=clock,
        ids=ids,
        bus=sessions_part.bus,
        permissions=sessions_part.permissions,
        sessions=sessions_part.sessions,
        project=prompt_part.project,
        paths=prompt_part.paths,
        config=prompt_part.config,
        agents=prompt_part.agents,
        instructions=prompt_part.instructions,
        system_prompt=prompt_part.system_prompt,
        registry=tools_part.registry,
        execute_tool=tools_part.execute_tool,
    )

    # -- each part's services under their own names (the same providers: overriding one here is enough) --
    paths = prompt_part.paths
    project = prompt_part.project
    config = prompt_part.config
    skills = prompt_part.skills
    instructions = prompt_part.instructions
    agents = prompt_part.agents
    system_prompt = prompt_part.system_prompt
    commands = prompt_part.commands
    command_prompts = prompt_part.command_prompts
    bus = sessions_part.bus
    permissions = sessions_part.permissions
    sessions = sessions_part.sessions
    truncation = tools_part.truncation
    subagents = tools_part.subagents
    builtin_tools = tools_part.builtins
    tools = tools_part.tools
    registry = tools_part.registry
    execute_tool = tools_part.execute_tool
    secret_outputs = engine_part.secret_outputs
    processor = engine_part.processor
    title = engine_part.title
    compaction = engine_part.compaction
    requests = engine_part.requests
    subtasks = engine_part.subtasks
    plan_mode = engine_part.plan_mode
    loop = engine_part.loop
