"""`open_runtime()`: the async lifecycle around the core's services, and the one override surface.

Every keyword of `open_runtime` is a container override (`store=` overrides `store`, `clock=` overrides
`clock`, `tools=` overrides `custom_tools`, ...). A caller may also pass a container it configured itself:

- The runtime works on its own copy of that container (`copy.deepcopy`: the caller's overrides come
  along, shared by reference; its singletons do not). The caller's container is never changed, so the
  same configured container opens a second runtime after the first, or beside it. (Chosen over refusing
  a container that was used once.) A consequence: a service the caller resolved from its own container
  is not the runtime's; inside a runtime, use `runtime.bus`, `runtime.agents`, `runtime.container`.
- What the caller overrode on its container is respected: an overridden `store` is used as it is (no
  SQLite file is opened or created, and the caller owns that store's lifecycle), and an overridden
  `models`, `project_id`, `config_info` or `background` is never replaced by what the runtime would supply.
- A keyword passed to `open_runtime` is applied on the copy, over the container's own override: the call
  says what this runtime uses.

It opens what the container only declares: the session store (SQLite under the data directory, or
`store_path`, or memory), one shared HTTP client (handed to the model resolver's factory), the MCP servers
of the config (started in the background, their tools offered through `tool_sources`), and the task
group background work runs in (titles, prune, and the removal of saved tool outputs older than seven days,
started once at opening). These lifecycles are supplied to the runtime's copy only. On exit, background
work gets a short grace period to finish (a title arriving just after the answer is still saved), then is
cancelled; the client and the store close last.

A class rather than an `@asynccontextmanager`, because the task group must not be entered across the
`yield` of an async generator.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from attrs import field, frozen
from dependency_injector import providers

from strata_core import llm
from strata_core.bus import Bus
from strata_core.clock import Clock
from strata_core.config.service import ConfigInfo
from strata_core.container import CoreContainer
from strata_core.context.agent import AgentService
from strata_core.context.instruction import UrlFetcher
from strata_core.context.project import ProjectInfo
from strata_core.engine.loop import SessionLoop
from strata_core.engine.parameters import ParameterPolicy
from strata_core.errors import StrataError
from strata_core.http import make_client
from strata_core.permission.flow import PermissionFlow, PermissionMode
from strata_core.prompt.system import SystemPromptService
from strata_core.session.service import SessionService
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore
from strata_core.tool.contract import Tool
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    from httpx import AsyncClient

    from strata_core.mcp.servers import McpServers

ClientHandle: TypeAlias = "Callable[[], AsyncClient]"
ModelResolverFactory: TypeAlias = "Callable[[ConfigInfo, Mapping[str, str], ClientHandle], llm.ModelResolver]"
"""Builds the model resolver once the config is loaded, e.g. `ProviderCatalog(config.blocks, env, client)`."""

BACKGROUND_GRACE_SECONDS = 5.0


class RuntimeOptionsError(StrataError):
    """`open_runtime` was given options that contradict each other, or lacks one it needs."""


@frozen
class Runtime:
    """The resolved services of one open runtime."""

    container: CoreContainer
    """The runtime's own container (a copy of the caller's, with the runtime's lifecycles supplied)."""
    loop: SessionLoop
    sessions: SessionService
    bus: Bus
    permissions: PermissionFlow
    agents: AgentService
    config: ConfigInfo
    project: ProjectInfo
    system_prompt: SystemPromptService
    models: llm.ModelResolver
    store: SessionStore
    clock: Clock
    abandon_background: Callable[[], None] = field(default=lambda: None, repr=False)
    """Cancels the runtime's background work (titles, pruning) now rather than granting it its grace at exit:
    for a run that was interrupted and will not wait for a title."""
    mcp: McpServers | None = None
    """The MCP servers of the config (starting or started), or None when the config has none."""


@frozen
class _StoreChoice:
    store_path: Path | None
    in_memory: bool
    mcp: bool = True
    """Whether the config's MCP servers are started (not for a runtime that only reads sessions)."""


class _OpenRuntime(AbstractAsyncContextManager[Runtime]):
    def __init__(self, container: CoreContainer, factory: ModelResolverFactory | None, choice: _StoreChoice) -> None:
        self._container = container
        self._factory = factory
        self._choice = choice
        self._stack = AsyncExitStack()
        self._background: TaskGroup | None = None

    async def __aenter__(self) -> Runtime:
        try:
            return await self._open()
        except BaseException:
            await self._stack.aclose()
            raise

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        if self._background is not None:
            self._background.cancel_scope.deadline = anyio.current_time() + BACKGROUND_GRACE_SECONDS
        try:
            return await self._stack.__aexit__(kind, error, traceback)
        except BaseExceptionGroup as group:
            if error is None or _leaves(group) != [error]:
                raise
        # The background task group wrapped the body's own exception in a group; returning False lets it
        # propagate as raised, so `except ScriptExhaustedError` around `async with open_runtime(...)` works.
        return False

    async def _open(self) -> Runtime:
        c = self._container
        if not _overridden(c.store):
            c.store.override(providers.Object(await self._open_store()))
        client = await self._stack.enter_async_context(make_client())
        project = await c.project().info()
        if not _overridden(c.project_id):
            c.project_id.override(providers.Object(project.id))
        if not _overridden(c.config_info):
            c.config_info.override(providers.Object(await c.config().get()))
        config: ConfigInfo = c.config_info()
        if not _overridden(c.models):
            assert self._factory is not None  # open_runtime refuses a runtime with no way to resolve models
            c.models.override(providers.Object(self._factory(config, c.env(), lambda: client)))
        if not _overridden(c.background):
            self._background = await self._stack.enter_async_context(anyio.create_task_group())
            c.background.override(providers.Object(self._background))
            self._background.start_soon(_remove_old_tool_outputs, c.truncation())
        mcp = await self._start_mcp(config)
        return Runtime(
            container=c,
            loop=c.loop(),
            sessions=c.sessions(),
            bus=c.bus(),
            permissions=c.permissions(),
            agents=c.agents(),
            config=config,
            project=project,
            system_prompt=c.system_prompt(),
            models=c.models(),
            store=c.store(),
            clock=c.clock(),
            abandon_background=self._abandon_background,
            mcp=mcp,
        )

    def _abandon_background(self) -> None:
        if self._background is not None:
            self._background.cancel_scope.cancel()

    async def _start_mcp(self, config: ConfigInfo) -> McpServers | None:
        """Start the config's MCP servers in the background (each bounded by its timeout) and offer their
        tools; closed with the runtime, before the store."""
        c = self._container
        if not self._choice.mcp or not config.blocks.mcp or _overridden(c.tool_sources):
            return None
        # Imported here: a config without servers never loads the MCP SDK (~100 ms of imports).
        from strata_core.mcp.servers import configured_servers

        project = await c.project().info()
        running = configured_servers(config, env=c.env(), paths=c.paths(), project=project, bus=c.bus())
        servers = await self._stack.enter_async_context(running)
        c.tool_sources.override(providers.Object((servers,)))
        if not _overridden(c.command_sources):
            c.command_sources.override(providers.Object((servers,)))
        return servers

    async def _open_store(self) -> SessionStore:
        if self._choice.in_memory:
            # Imported here: its row classes cost ~2.5 ms of start-up that a run on SQLite never uses.
            from strata_core.session.memory_store import MemorySessionStore

            return await self._stack.enter_async_context(MemorySessionStore.open())
        path = self._choice.store_path or self._container.paths().database
        return await self._stack.enter_async_context(SqliteSessionStore.open(path, self._container.clock()))


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The exceptions of a (possibly nested) group, flattened."""
    return [
        leaf
        for inner in group.exceptions
        for leaf in (_leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner])
    ]


def _overridden(provider: providers.Provider[Any]) -> bool:
    """Whether someone (the caller, before the runtime) supplied this provider."""
    return provider.last_overriding is not None


async def _remove_old_tool_outputs(truncation: Truncation) -> None:
    # In a worker thread of the background task group, so the first request never waits on the directory scan.
    await anyio.to_thread.run_sync(lambda: truncation.cleanup())


def open_runtime(
    directory: Path,
    env: Mapping[str, str],
    *,
    store: SessionStore | None = None,
    store_path: Path | None = None,
    in_memory_store: bool = False,
    models: llm.ModelResolver | None = None,
    model_resolver_factory: ModelResolverFactory | None = None,
    parameters: ParameterPolicy | None = None,
    clock: Clock | None = None,
    tools: Iterable[Tool] = (),
    permission_mode: PermissionMode | None = None,
    url_fetcher: UrlFetcher | None = None,
    container: CoreContainer | None = None,
    mcp: bool = True,
) -> AbstractAsyncContextManager[Runtime]:
    """`async with open_runtime(directory, env, ...) as runtime:` — the core, ready to run turns.

    - `store`: a store the caller opened and will close (no SQLite file is created); otherwise the
      runtime opens one: in memory with `in_memory_store`, else SQLite at `store_path` or under the data
      directory.
    - `models`: the model resolver; otherwise `model_resolver_factory` builds one from the loaded config,
      the environment and the shared HTTP client; otherwise the container must already provide `models`.
    - `parameters`: the providers' `ParameterPolicy` (without one, only the agent's own settings apply).
    - `clock`: the one source of time (record times, ids, the prompt's date); e.g. a `FrozenClock`.
    - `tools`: custom tools offered alongside the built-ins; one named like a built-in replaces it.
    - `permission_mode`: who answers permission questions (default: the container's, "interactive").
    - `url_fetcher`: how instruction URLs are fetched (default: over HTTP).
    - `container`: a `CoreContainer` configured by the caller; the runtime opens on a copy of it.
    - `mcp`: start the config's MCP servers (default); False for a runtime that runs no turn.
    """
    if store is not None and (store_path is not None or in_memory_store):
        raise RuntimeOptionsError("open_runtime: pass either store= or store_path=/in_memory_store=, not both")
    c = copy.deepcopy(container) if container is not None else CoreContainer()
    if models is None and model_resolver_factory is None and not _overridden(c.models):
        raise RuntimeOptionsError(
            "open_runtime needs a model resolver: pass models= (an llm.ModelResolver), model_resolver_factory=, "
            "or a container whose `models` is overridden"
        )
    overrides: dict[str, Any] = {
        "directory": directory.absolute(),
        "env": env,
        "store": store,
        "models": models,
        "parameters": parameters,
        "clock": clock,
        "permission_mode": permission_mode,
        "url_fetcher": url_fetcher,
        "custom_tools": tuple(tools) or None,
    }
    for name, value in overrides.items():
        if value is not None:
            getattr(c, name).override(providers.Object(value))
    return _OpenRuntime(c, model_resolver_factory, _StoreChoice(store_path, in_memory_store, mcp))
