"""`open_runtime()`: the async lifecycle around the core's services.

It opens what the container only declares: the session store, one shared HTTP client (handed to the model
resolver's factory), and the task group background work runs in (titles, prune, and the removal of saved tool
outputs older than seven days, started once at opening). On exit, background work gets a short grace period
to finish (a title arriving just after the answer is still saved), then is cancelled; the client and the
store close last.

A class rather than an `@asynccontextmanager`, because the task group must not be entered across the
`yield` of an async generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from attrs import frozen
from dependency_injector import providers

from strata_core import llm
from strata_core.bus import Bus
from strata_core.config.service import ConfigInfo
from strata_core.container import CoreContainer
from strata_core.context.agent import AgentService
from strata_core.context.project import ProjectInfo
from strata_core.engine.loop import SessionLoop
from strata_core.engine.parameters import ParameterPolicy
from strata_core.engine.part_writer import NowMs
from strata_core.http import make_client
from strata_core.permission.flow import PermissionFlow, PermissionMode
from strata_core.prompt.system import SystemPromptService
from strata_core.session.service import SessionService
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import SessionStore
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    from httpx import AsyncClient

ClientHandle: TypeAlias = "Callable[[], AsyncClient]"
ModelResolverFactory: TypeAlias = "Callable[[ConfigInfo, Mapping[str, str], ClientHandle], llm.ModelResolver]"
"""Builds the model resolver once the config is loaded, e.g. `ProviderCatalog(config.blocks, env, client)`."""

BACKGROUND_GRACE_SECONDS = 5.0


@frozen
class Runtime:
    """The resolved services of one open runtime."""

    container: CoreContainer
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


class _OpenRuntime(AbstractAsyncContextManager[Runtime]):
    def __init__(
        self,
        container: CoreContainer,
        models: llm.ModelResolver | None,
        factory: ModelResolverFactory | None,
        store_path: Path | None,
        in_memory_store: bool,
    ) -> None:
        self._container = container
        self._models = models
        self._factory = factory
        self._store_path = store_path
        self._in_memory = in_memory_store
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
        return await self._stack.__aexit__(kind, error, traceback)

    async def _open(self) -> Runtime:
        c = self._container
        store = await self._open_store()
        c.store.override(providers.Object(store))
        client = await self._stack.enter_async_context(make_client())
        project = await c.project().info()
        c.project_id.override(providers.Object(project.id))
        config = await c.config().get()
        c.config_info.override(providers.Object(config))
        models = self._resolver(config, lambda: client)
        c.models.override(providers.Object(models))
        self._background = await self._stack.enter_async_context(anyio.create_task_group())
        c.background.override(providers.Object(self._background))
        self._background.start_soon(_remove_old_tool_outputs, c.truncation())
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
            models=models,
            store=store,
        )

    async def _open_store(self) -> SessionStore:
        if self._in_memory:
            # Imported here: its row classes cost ~2.5 ms of start-up that a run on SQLite never uses.
            from strata_core.session.memory_store import MemorySessionStore

            return await self._stack.enter_async_context(MemorySessionStore.open())
        path = self._store_path or self._container.paths().database
        return await self._stack.enter_async_context(SqliteSessionStore.open(path))

    def _resolver(self, config: ConfigInfo, client: Callable[[], Any]) -> llm.ModelResolver:
        if self._models is not None:
            return self._models
        if self._factory is not None:
            return self._factory(config, self._container.env(), client)
        resolver: llm.ModelResolver = self._container.models()
        return resolver


async def _remove_old_tool_outputs(truncation: Truncation) -> None:
    # In a worker thread of the background task group, so the first request never waits on the directory scan.
    await anyio.to_thread.run_sync(lambda: truncation.cleanup())


def open_runtime(
    directory: Path,
    env: Mapping[str, str],
    *,
    permission_mode: PermissionMode = "interactive",
    models: llm.ModelResolver | None = None,
    model_resolver_factory: ModelResolverFactory | None = None,
    parameters: ParameterPolicy | None = None,
    store_path: Path | None = None,
    in_memory_store: bool = False,
    clock: NowMs | None = None,
    container: CoreContainer | None = None,
) -> AbstractAsyncContextManager[Runtime]:
    """`async with open_runtime(directory, env, ...) as runtime:` — the core, ready to run turns.

    The model resolver is `models`, else built by `model_resolver_factory` from the loaded config, the
    environment and the shared HTTP client, else whatever the given container's `models` provides.
    `parameters` is the providers' `ParameterPolicy` (without one, only the agent's own settings apply).
    """
    c = container or CoreContainer()
    c.directory.override(providers.Object(directory.absolute()))
    c.env.override(providers.Object(env))
    c.permission_mode.override(providers.Object(permission_mode))
    if parameters is not None:
        c.parameters.override(providers.Object(parameters))
    if clock is not None:
        c.now.override(providers.Object(clock))
    return _OpenRuntime(c, models, model_resolver_factory, store_path, in_memory_store)
