"""The core's services as dependency-injector providers: `PromptContainer`, and the flat `CoreContainer` on it.

- `PromptContainer`: what the system prompt is assembled from (paths, project, config, skills,
  instructions, agents, the system prompt, commands). It needs only a directory: an application can build
  it alone, with no store and no model, and call `system_prompt()`.
- `CoreContainer` is the prompt's providers plus everything a turn runs on, declared once each, in
  blocks: what the runtime supplies, the swappable services with Strata's defaults, sessions and
  permissions, tools, and the turn. Each service is typed by its Protocol (`Permission`, `Session`,
  `Processor`, `Loop`, ...), so `CoreContainer().loop()` is a `Loop` to mypy.

Declarations only: no constructor here does I/O. `open_runtime()` builds one `CoreContainer` per runtime,
overrides what its keywords name, and supplies the lifecycles (store, HTTP client, background task group).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from strata_core import llm
from strata_core.bus import Bus
from strata_core.clock import Clock, SystemClock
from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig
from strata_core.config.service import Config, ConfigInfo, ConfigService
from strata_core.context.agent import Agents, AgentService
from strata_core.context.instruction import HttpUrlFetcher, Instruction, InstructionService, UrlFetcher
from strata_core.context.skill import Skills, SkillService
from strata_core.engine.command_services import command_prompts, command_service
from strata_core.engine.compaction import CompactionService
from strata_core.engine.loop import SessionLoop, Spawner
from strata_core.engine.loop_services import Loop, LoopSettings, SessionRecords, StepServices
from strata_core.engine.parameters import BasicParameters, ParameterPolicy
from strata_core.engine.plan_mode_switch import plan_exit_if_offered, plan_mode_if_enabled
from strata_core.engine.processor import Processor, StepProcessor
from strata_core.engine.subagent import LoopHandle, LoopSubagents
from strata_core.engine.subtask import SubtaskRunner
from strata_core.engine.title import TitleModel, TitleService
from strata_core.engine.tool_calls import ToolExecutor
from strata_core.engine.turn_request import TurnRequestBuilder
from strata_core.engine.turn_targets import TurnTargets
from strata_core.formatter.contract import Formatter, NoFormatter
from strata_core.ids import Entropy, Ids, random_base62
from strata_core.lsp.contract import LanguageServers, NoLanguageServers
from strata_core.permission.approval import Approver, Refuser
from strata_core.permission.flow import Permission, PermissionFlow
from strata_core.project import Project, ProjectService
from strata_core.prompt.system import SystemPrompt, SystemPromptService
from strata_core.secret_outputs import SecretOutputs
from strata_core.session.service import SessionService
from strata_core.session.session import Session
from strata_core.session.store import SessionStore
from strata_core.snapshot.contract import NoSnapshot, Snapshot
from strata_core.tool.builtin.bash import DEFAULT_HIDDEN_ENV
from strata_core.tool.builtin.defaults import builtin_tools
from strata_core.tool.builtin.todowrite import InMemoryTodoStore, TodoStore
from strata_core.tool.contract import Tool
from strata_core.tool.registry import ToolRegistry, ToolSource, with_custom_tools
from strata_core.tool.runner import run_call
from strata_core.tool.support.code_checks import CodeChecks
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    import httpx

    from strata_core.context.command import CommandSource


class PromptContainer(containers.DeclarativeContainer):
    """What the system prompt is assembled from, for one directory; needs no store, no model, no runtime."""

    directory: providers.Dependency[Path] = providers.Dependency(instance_of=Path)
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency(default={})
    clock: providers.Provider[Clock] = providers.Singleton(SystemClock)
    """The one source of time: record times, ids, the prompt's date, tool-output retention."""
    http_client: providers.Provider[httpx.AsyncClient | None] = providers.Object(None)
    """The shared HTTP client (the runtime's, or the embedder's `http_client=`); None: one per request."""
    url_fetcher: providers.Provider[UrlFetcher] = providers.Singleton(HttpUrlFetcher, client=http_client)
    """How instruction URLs are fetched: over `http_client` unless replaced."""

    paths = providers.Singleton(StrataPaths.from_env, env)
    project: providers.Provider[Project] = providers.Singleton(
        ProjectService, directory, id_cache=paths.provided.project_ids
    )
    config: providers.Provider[Config] = providers.Singleton(ConfigService, paths=paths, project=project, env=env)
    skills: providers.Provider[Skills] = providers.Singleton(
        SkillService, config=config, project=project, paths=paths, env=env
    )
    instructions: providers.Provider[Instruction] = providers.Singleton(
        InstructionService, config=config, project=project, paths=paths, env=env, fetcher=url_fetcher
    )
    agents: providers.Provider[Agents] = providers.Singleton(
        AgentService, config=config, paths=paths, skill_dirs=skills.provided.dirs, project=project
    )
    system_prompt: providers.Provider[SystemPrompt] = providers.Singleton(
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


# The prompt's providers, named for the blocks below (the class body of a subclass cannot see its base's names).
_directory, _env, _clock = PromptContainer.directory, PromptContainer.env, PromptContainer.clock
_paths, _project, _config = PromptContainer.paths, PromptContainer.project, PromptContainer.config
_skills, _agents, _instructions = PromptContainer.skills, PromptContainer.agents, PromptContainer.instructions
_system_prompt = PromptContainer.system_prompt


class CoreContainer(PromptContainer):
    """The whole core for one project directory, every service declared once."""

    # -- supplied by the runtime when it opens -------------------------------------------------------------
    store: providers.Dependency[SessionStore] = providers.Dependency()
    """The session store: SQLite, memory, or the embedder's (`open_runtime(store=...)`)."""
    models: providers.Dependency[llm.ModelResolver] = providers.Dependency()
    """The model resolver: the embedder's, or built by its factory from the loaded config."""
    project_id: providers.Dependency[str] = providers.Dependency(instance_of=str)
    config_info: providers.Dependency[ConfigInfo] = providers.Dependency(instance_of=ConfigInfo, default=ConfigInfo())
    """The loaded config, for what is built synchronously from it (tool output limits, the sandbox)."""
    background: providers.Provider[Spawner | None] = providers.Object(None)
    """Where titles and prune run: the runtime's task group (None: not run)."""
    loop_handle = providers.Singleton(LoopHandle)
    """The loop, for the task tool's subagents: set by the runtime once `loop` is built."""

    # -- swappable services, with Strata's defaults --------------------------------------------------------
    bus: providers.Provider[Bus] = providers.Singleton(Bus)
    id_entropy: providers.Provider[Entropy] = providers.Object(random_base62)
    """The random tail of ids (`ids.seeded_entropy(n)` makes them reproducible)."""
    ids = providers.Singleton(Ids, clock=_clock, entropy=id_entropy)
    parameters: providers.Provider[ParameterPolicy] = providers.Singleton(BasicParameters)
    approver: providers.Provider[Approver] = providers.Singleton(Refuser)
    """Who answers what the rules leave to a person; the default refuses at once."""
    approval_timeout: providers.Provider[float | None] = providers.Object(None)
    title_model: providers.Provider[TitleModel | None] = providers.Object(None)
    """Which model titles a session; None: no titles."""
    sandbox: providers.Provider[SandboxConfig] = config_info.provided.blocks.sandbox
    """How shell commands are sandboxed: the config's `sandbox` block unless replaced."""
    todos: providers.Provider[TodoStore] = providers.Singleton(InMemoryTodoStore)
    hidden_env: providers.Provider[Collection[str]] = providers.Object(DEFAULT_HIDDEN_ENV)
    """Variables shell commands must not see: the API keys' (the composition root adds its catalogue's)."""
    custom_tools: providers.Provider[Sequence[Tool]] = providers.Object(())
    """Tools of the application, offered alongside the built-ins (`open_runtime(..., tools=[...])`)."""
    tool_sources: providers.Provider[Sequence[ToolSource]] = providers.Object(())
    """Tools known once something has started: the runtime puts the MCP servers here when configured."""
    web_client: providers.Provider[httpx.AsyncClient | None] = providers.Object(None)
    """The embedder's `http_client=` again, for webfetch (which otherwise pins each connection itself)."""
    formatter: providers.Provider[Formatter] = providers.Object(NoFormatter())
    """Formats what the file tools wrote: none unless the config's `formatter` turns it on (the runtime)."""
    language_servers: providers.Provider[LanguageServers] = providers.Object(NoLanguageServers())
    """Diagnoses what the file tools wrote: none unless the config's `lsp` turns them on (the runtime)."""
    code_checks = providers.Singleton(CodeChecks, formatter=formatter, servers=language_servers)
    snapshots: providers.Provider[Snapshot] = providers.Object(NoSnapshot())
    """Records the worktree around each step: none unless the runtime finds git (config `snapshot`)."""

    # -- sessions and permissions --------------------------------------------------------------------------
    permissions: providers.Provider[Permission] = providers.Singleton(
        PermissionFlow, ids=ids, approver=approver, approval_timeout=approval_timeout
    )
    sessions: providers.Provider[Session] = providers.Singleton(
        SessionService,
        store=store,
        project_id=project_id,
        directory=providers.Callable(str, _directory),
        clock=_clock,
        ids=ids,
        bus=bus,
        project=_project,
        snapshots=snapshots,
    )

    # -- tools ---------------------------------------------------------------------------------------------
    truncation = providers.Singleton(Truncation.configured, _paths, project_id, config_info, _clock, ids)
    subagents = providers.Singleton(LoopSubagents, sessions=sessions, agents=_agents, config=_config, loop=loop_handle)
    plan_exit: providers.Provider[Tool | None] = providers.Singleton(
        plan_exit_if_offered,
        env=_env,
        approver=approver,
        permissions=permissions,
        store=store,
        bus=bus,
        project=_project,
        paths=_paths,
        clock=_clock,
        ids=ids,
    )
    """Experimental plan mode's tool, or None when it is not offered (`plan_exit_offered`)."""
    builtin_tools = providers.Singleton(
        builtin_tools,
        truncation=truncation,
        skills=_skills,
        agents=_agents,
        subagents=subagents,
        instructions=_instructions,
        todos=todos,
        hidden_env=hidden_env,
        plan_exit=plan_exit,
        sandbox=sandbox,
        config_env=config_info.provided.env_names,
        env=_env,
        paths=_paths,
        web_client=web_client,
        checks=code_checks,
    )
    tools = providers.Singleton(with_custom_tools, builtin_tools, custom_tools)
    registry = providers.Singleton(ToolRegistry, tools=tools, sources=tool_sources)
    execute_tool: providers.Provider[ToolExecutor] = providers.Singleton(partial, run_call, truncation=truncation)

    # -- the turn ------------------------------------------------------------------------------------------
    secret_outputs = providers.Singleton(SecretOutputs)
    """Clear outputs of secret files shown this process: the processor keeps them, the request builder sends them."""
    processor: providers.Provider[Processor] = providers.Singleton(
        StepProcessor, store, bus, permissions, execute_tool, _clock, ids, secrets=secret_outputs, snapshots=snapshots
    )
    title = providers.Singleton(
        TitleService, store=store, bus=bus, agents=_agents, title_model=title_model, parameters=parameters
    )
    compaction = providers.Singleton(CompactionService, store, bus, _agents, models, processor, _clock, ids)
    requests = providers.Singleton(
        TurnRequestBuilder, _system_prompt, registry, parameters, ids, secrets=secret_outputs
    )
    subtasks = providers.Singleton(SubtaskRunner, store, bus, execute_tool, _clock, ids)
    plan_mode = providers.Singleton(
        plan_mode_if_enabled, store=store, bus=bus, project=_project, paths=_paths, env=_env, ids=ids
    )
    """Experimental plan mode's service, or None while the flag is off."""
    targets = providers.Singleton(TurnTargets, agents=_agents, models=models, store=store, bus=bus)
    """Which agent and model a turn uses."""
    loop: providers.Provider[Loop] = providers.Singleton(
        SessionLoop,
        records=providers.Singleton(SessionRecords, store, sessions, bus, _clock, ids),
        targets=targets,
        steps=providers.Singleton(
            StepServices, requests, processor, compaction, title, subtasks, _instructions, registry, plan_mode
        ),
        settings=providers.Singleton(LoopSettings, _config, _project, _env),
        background=background,
    )
