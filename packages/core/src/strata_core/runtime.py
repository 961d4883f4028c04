"""`open_runtime()`: the async lifecycle around the core's services, and the one override surface.

    async with open_runtime(directory, env, models=my_resolver, store="memory", approver=my_approver) as rt:
        session = await rt.sessions.create()
        answer = await rt.loop.prompt(PromptRequest(session.id, [TextInput("hello")]))

Every keyword (`RuntimeOptions`) names one service of a fresh `CoreContainer` and replaces it for this
runtime; what is not named is Strata's default. `overrides(...)` sets the same keywords for a scope: every
`open_runtime` inside it (however deep in the code under test) uses them, over its own keywords, until the
`with` block ends; scopes nest, the inner one winning.

It opens what the container only declares: the session store (SQLite under the data directory, a SQLite file,
memory, or the caller's own store, which the caller closes), one shared HTTP client (instruction URLs and the
model resolver's factory use it; the caller's `http_client=` instead, which the caller closes), the MCP servers
of the config (started in the background, their tools offered through `tool_sources`), and the task group
background work runs in (titles, prune, and the removal of saved tool outputs older than seven days, started
once at opening). On exit, background work gets `background_grace` seconds (a title arriving just after the
answer is still saved), then is cancelled; the client and the store close last.

A class rather than an `@asynccontextmanager`, because the task group must not be entered across the
`yield` of an async generator.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TypeAlias, TypedDict

import anyio
import anyio.to_thread
from anyio.abc import TaskGroup
from attrs import field, frozen
from dependency_injector import providers

from strata_core import llm
from strata_core.bus import Bus
from strata_core.clock import Clock
from strata_core.config.schema import SandboxConfig
from strata_core.config.service import ConfigInfo
from strata_core.container import CoreContainer
from strata_core.context.agent import Agents
from strata_core.context.instruction import Instruction, UrlFetcher
from strata_core.context.skill import Skills
from strata_core.engine.loop_services import Loop
from strata_core.engine.parameters import ParameterPolicy
from strata_core.engine.processor import Processor
from strata_core.engine.title import TitleModel, catalogue_titles
from strata_core.errors import StrataError
from strata_core.formatter.contract import Formatter
from strata_core.http import make_client
from strata_core.ids import Entropy
from strata_core.lsp.contract import LanguageServers
from strata_core.permission.approval import Approver
from strata_core.permission.flow import Permission
from strata_core.project import ProjectInfo
from strata_core.prompt.system import SystemPrompt
from strata_core.session.opening import StoreChoice, adopt_path_keyed_sessions, is_store_choice, open_store
from strata_core.session.session import Session
from strata_core.session.store import SessionStore
from strata_core.snapshot.contract import Snapshot
from strata_core.tool.contract import Tool
from strata_core.tool.truncation import Truncation

if TYPE_CHECKING:
    from typing import Unpack

    from httpx import AsyncClient

    from strata_core.mcp.servers import McpServers

ClientHandle: TypeAlias = "Callable[[], AsyncClient]"
ModelResolverFactory: TypeAlias = "Callable[[ConfigInfo, Mapping[str, str], ClientHandle], llm.ModelResolver]"
"""Builds the model resolver once the config is loaded, e.g. `ProviderCatalog(config.blocks, env, client)`."""
HiddenEnv: TypeAlias = "Collection[str] | Callable[[llm.ModelResolver], Collection[str]]"
"""Variables shell commands must not see, or how to tell them from the runtime's model resolver."""

BACKGROUND_GRACE_SECONDS = 1.0


class RuntimeOptions(TypedDict, total=False):
    """The keywords of `open_runtime` and `overrides`: each replaces one service for the runtime."""

    store: StoreChoice
    """Default: the PostgreSQL database of `STRATA_DATABASE_URL` when set, else SQLite under the data directory."""
    models: llm.ModelResolver | ModelResolverFactory
    """A resolver, or a factory building one from the loaded config, the env and the shared HTTP client."""
    title_model: TitleModel | None
    """Which model titles a session. Default with a factory: the resolver's small model, else the turn's
    model (OpenCode's choice); with a resolver you pass: no titles (it is asked only for your turns)."""
    approver: Approver
    """Who answers what the rules leave to a person; default: refused at once (`approval.refuse`)."""
    approval_timeout: float | None
    """Seconds to wait for the approver, then the ask is refused saying so; default: no limit."""
    http_client: AsyncClient
    """The client for instruction URLs, webfetch and the model factory (e.g. over `httpx.MockTransport`); you
    close it. Default: one the runtime opens (webfetch then pins each connection to the addresses it judged)."""
    clock: Clock
    bus: Bus
    parameters: ParameterPolicy
    tools: Iterable[Tool]
    """Custom tools offered alongside the built-ins; one named like a built-in replaces it."""
    url_fetcher: UrlFetcher
    sandbox: SandboxConfig
    hidden_env: HiddenEnv
    id_entropy: Entropy
    system_prompt: SystemPrompt
    instructions: Instruction
    skills: Skills
    permissions: Permission
    sessions: Session
    processor: Processor
    loop: Loop
    mcp: bool
    """Start the config's MCP servers (default); False for a runtime that runs no turn (it then neither starts
    them nor takes the snapshot that makes a turn's first one cheap)."""
    formatter: Formatter
    """Formats what the file tools wrote; default: the config's `formatter` (nothing without the key)."""
    language_servers: LanguageServers
    """Diagnoses what the file tools wrote; default: the config's `lsp` servers (none without the key)."""
    snapshots: Snapshot
    """Records the worktree around each step; default: a git directory of Strata's own when `git` is on PATH
    and the config does not say `snapshot: false` (`NoSnapshot()` turns them off)."""
    background_grace: float
    """Seconds background work (a title) may finish in at exit; default 1."""


_SERVICES: tuple[str, ...] = ("clock", "bus", "parameters", "approver", "approval_timeout", "url_fetcher", "sandbox")
_SERVICES += ("id_entropy", "system_prompt", "instructions", "skills", "permissions", "sessions", "processor", "loop")
_SERVICES += ("formatter", "language_servers", "snapshots")
_scoped: ContextVar[RuntimeOptions | None] = ContextVar("strata_runtime_overrides", default=None)


class RuntimeOptionsError(StrataError):
    """`open_runtime` was given options that contradict each other, or lacks one it needs."""


@frozen
class Runtime:
    """The resolved services of one open runtime."""

    container: CoreContainer
    """The runtime's own container: every other service (`runtime.container.registry()`, `.paths()`)."""
    loop: Loop
    sessions: Session
    bus: Bus
    permissions: Permission
    approver: Approver
    agents: Agents
    config: ConfigInfo
    project: ProjectInfo
    system_prompt: SystemPrompt
    models: llm.ModelResolver
    store: SessionStore
    clock: Clock
    abandon_background: Callable[[], None] = field(default=lambda: None, repr=False)
    """Cancels the runtime's background work (titles, pruning) now rather than granting it its grace at exit:
    for a run that was interrupted and will not wait for a title."""
    mcp: McpServers | None = None
    """The MCP servers of the config (starting or started), or None when the config has none."""


@contextmanager
def overrides(**options: Unpack[RuntimeOptions]) -> Iterator[None]:
    """`with overrides(clock=FrozenClock(...), store="memory"):` — every runtime opened inside uses these."""
    token = _scoped.set(RuntimeOptions(**{**(_scoped.get() or {}), **options}))
    try:
        yield
    finally:
        _scoped.reset(token)


def open_runtime(
    directory: Path, env: Mapping[str, str], **options: Unpack[RuntimeOptions]
) -> AbstractAsyncContextManager[Runtime]:
    """`async with open_runtime(directory, env, models=..., ...) as runtime:` — the core, ready to run turns.

    `models` is required (here or in an enclosing `overrides`); see `RuntimeOptions` for every keyword."""
    chosen = RuntimeOptions(**{**options, **(_scoped.get() or {})})
    if "models" not in chosen:
        raise RuntimeOptionsError(
            "open_runtime needs a model resolver: pass models= (an llm.ModelResolver, or a factory of one)"
        )
    c = CoreContainer()
    c.directory.override(providers.Object(directory.absolute()))
    c.env.override(providers.Object(env))
    for name in _SERVICES:
        if name in chosen:
            getattr(c, name).override(providers.Object(chosen[name]))  # type: ignore[literal-required]
    if "tools" in chosen:
        c.custom_tools.override(providers.Object(tuple(chosen["tools"])))
    hidden = chosen.get("hidden_env")
    if callable(hidden):
        c.hidden_env.override(providers.Callable(hidden, c.models))
    elif hidden is not None:
        c.hidden_env.override(providers.Object(hidden))
    return _OpenRuntime(c, chosen)


class _OpenRuntime(AbstractAsyncContextManager[Runtime]):
    def __init__(self, container: CoreContainer, options: RuntimeOptions) -> None:
        self._container = container
        self._options = options
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
            grace = self._options.get("background_grace", BACKGROUND_GRACE_SECONDS)
            self._background.cancel_scope.deadline = anyio.current_time() + grace
        try:
            return await self._stack.__aexit__(kind, error, traceback)
        except BaseExceptionGroup as group:
            if error is None or _leaves(group) != [error]:
                raise
        # The background task group wrapped the body's own exception in a group; returning False lets it
        # propagate as raised, so `except ScriptExhaustedError` around `async with open_runtime(...)` works.
        return False

    async def _open(self) -> Runtime:
        c, options = self._container, self._options
        given = options.get("http_client")
        client = given if given is not None else await self._stack.enter_async_context(make_client())
        c.http_client.override(providers.Object(client))
        c.web_client.override(providers.Object(given))
        await self._open_store_beside_config(options.get("store"))
        project = await c.project().info()
        await adopt_path_keyed_sessions(c.store(), project)
        config: ConfigInfo = c.config_info()
        models = options["models"]
        if callable(getattr(models, "resolve", None)):
            resolver: llm.ModelResolver = models  # type: ignore[assignment]
            titles = None
        else:
            resolver = models(config, c.env(), lambda: client)  # type: ignore[operator]
            titles = catalogue_titles(resolver)
        c.models.override(providers.Object(resolver))
        c.title_model.override(providers.Object(options.get("title_model", titles)))
        self._background = await self._stack.enter_async_context(anyio.create_task_group())
        c.background.override(providers.Object(self._background))
        self._background.start_soon(_remove_old_tool_outputs, c.truncation())
        mcp = await self._start_mcp(config, project)
        await self._start_code_tools(config, project)
        self._start_snapshots(config, project)
        loop = c.loop()
        c.loop_handle().set(loop)
        return Runtime(
            container=c,
            loop=loop,
            sessions=c.sessions(),
            bus=c.bus(),
            permissions=c.permissions(),
            approver=c.approver(),
            agents=c.agents(),
            config=config,
            project=project,
            system_prompt=c.system_prompt(),
            models=resolver,
            store=c.store(),
            clock=c.clock(),
            abandon_background=self._abandon_background,
            mcp=mcp,
        )

    async def _open_store_beside_config(self, choice: StoreChoice | None) -> None:
        """Open the store while the project is discovered and the config read, since neither needs the other:
        a new SQLite file's tables, `git rev-list` for the project's id and the config files' reads all wait
        on the disk or a process, in worker threads.

        The reading runs in a task group entered on the runtime's stack before the store, so the store's own
        contexts (PostgreSQL's lease keeper is a task group) nest inside it and close before it; the task
        keeps what fails for this task to raise as itself, and the group is left empty once it is done."""
        c = self._container
        read = anyio.Event()
        failed: list[Exception] = []

        async def read_project_and_config() -> None:
            try:
                c.project_id.override(providers.Object((await c.project().info()).id))
                c.config_info.override(providers.Object(await c.config().get()))
            except Exception as error:  # raised by the opening task below, as if read there
                failed.append(error)
            finally:
                read.set()

        reading = await self._stack.enter_async_context(anyio.create_task_group())
        reading.start_soon(read_project_and_config)
        c.store.override(providers.Object(await self._open_store(choice)))
        await read.wait()
        if failed:
            raise failed[0]

    async def _stop_turn_of_lost_lease(self, session_id: str) -> None:
        """A session whose lease another process took while the shared database was away: its turn here stops
        (stored as aborted), so the session has one writer again."""
        await self._container.loop().cancel(session_id)

    def _abandon_background(self) -> None:
        if self._background is not None:
            self._background.cancel_scope.cancel()

    async def _start_mcp(self, config: ConfigInfo, project: ProjectInfo) -> McpServers | None:
        """Start the config's MCP servers in the background (each bounded by its timeout) and offer their
        tools; closed with the runtime, before the store."""
        c = self._container
        if not self._options.get("mcp", True) or not config.blocks.mcp:
            return None
        # Imported here: a config without servers never loads the MCP SDK (~100 ms of imports).
        from strata_core.mcp.servers import configured_servers

        running = configured_servers(config, env=c.env(), paths=c.paths(), project=project, bus=c.bus())
        servers = await self._stack.enter_async_context(running)
        c.tool_sources.override(providers.Object((servers,)))
        c.command_sources.override(providers.Object((servers,)))
        return servers

    async def _start_code_tools(self, config: ConfigInfo, project: ProjectInfo) -> None:
        """The config's formatters and language servers, unless given; servers close with the runtime."""
        c, options = self._container, self._options
        blocks = config.blocks
        if "formatter" not in options and blocks.formatter.enabled:
            from strata_core.formatter.formatters import configured_formatters
            from strata_core.formatter.service import ProjectFormatter

            specs = configured_formatters(blocks.formatter)
            formatter = ProjectFormatter(specs, project.directory, project.worktree, c.env())
            c.formatter.override(providers.Object(formatter))
        if "language_servers" not in options and blocks.lsp.enabled:
            from strata_core.lsp.running import configured_language_servers

            running = configured_language_servers(config, env=c.env(), paths=c.paths(), project=project)
            c.language_servers.override(providers.Object(await self._stack.enter_async_context(running)))

    def _start_snapshots(self, config: ConfigInfo, project: ProjectInfo) -> None:
        """Snapshots in a git directory of Strata's own, unless given, turned off, or `git` is missing;
        old ones are pruned in the background."""
        c = self._container
        if "snapshots" in self._options or config.blocks.snapshot is False:
            return
        # Imported here: a runtime that never tracks (an embedder's, `snapshot: false`) loads none of it.
        from strata_core.sandbox.protected import is_secret_name
        from strata_core.snapshot.setup import project_snapshots

        # Secret files (`.env`) stay out: their content is never stored, so a revert cannot bring one back.
        snapshots = project_snapshots(project, c.paths(), c.env(), leave_out=is_secret_name)
        if snapshots is not None:
            c.snapshots.override(providers.Object(snapshots))
            assert self._background is not None
            self._background.start_soon(snapshots.prune_if_due)  # first: it decides before the warm-up's `init`
            if self._options.get("mcp", True):  # a runtime that runs turns (see `RuntimeOptions.mcp`)
                self._background.start_soon(snapshots.warm_up)

    async def _open_store(self, choice: StoreChoice | None) -> SessionStore:
        if not is_store_choice(choice):
            raise RuntimeOptionsError(
                f'open_runtime: store= takes a SessionStore, a Path, a postgresql:// URL or "memory", not {choice!r}'
            )
        c = self._container
        return await open_store(self._stack, choice, env=c.env(), default_database=lambda: c.paths().database,
                                clock=c.clock(), on_lost_lease=self._stop_turn_of_lost_lease)  # fmt: skip


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The exceptions of a (possibly nested) group, flattened."""
    return [
        leaf
        for inner in group.exceptions
        for leaf in (_leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner])
    ]


async def _remove_old_tool_outputs(truncation: Truncation) -> None:
    # In a worker thread of the background task group, so the first request never waits on the directory scan.
    await anyio.to_thread.run_sync(lambda: truncation.cleanup())
