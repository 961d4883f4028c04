"""One configured MCP server: started in a task of its own, connected through the `mcp` SDK, kept open until
the runtime closes.

A local server is spawned from `launch.local_launch` over stdio (the SDK puts it in a process group of its
own and ends that group on close); a remote one is reached over streamable HTTP, and over SSE when that
fails, with the configured headers, as OpenCode tries them. The start (connect, initialize, list the tools)
is bounded by the server's `timeout` (30 s without one, OpenCode's default): past it the server is failed,
its task cancelled, and its process group ended. A server whose stream ends (a local server that exited) is
failed ("Connection closed") at once, so its tools are no longer offered; one that says its tools changed
(`notifications/tools/list_changed`) has them listed again in the connection's task. A connection never
raises into its task group; a failure is its `status`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import anyio
from anyio.abc import TaskGroup
from attrs import define, field, frozen

from strata_core.config.schema import McpLocalConfig, McpRemoteConfig
from strata_core.extras import needing
from strata_core.logging import get_logger
from strata_core.mcp.launch import Contain, local_launch
from strata_core.mcp.requests import McpRequestError, answering
from strata_core.mcp.stderr_tail import StderrTail
from strata_core.mcp.watched_stream import WatchedStream

if TYPE_CHECKING:
    # The SDK is imported when a server starts: without it (strata-core's `mcp` extra) every server is failed
    # with the extra named, as any server that cannot start is, and the rest of the runtime carries on.
    from mcp import types
    from mcp.client.session import ClientSession

log = get_logger(__name__)

START_TIMEOUT_MS = 30_000
"""How long a server without a `timeout` may take to start (OpenCode's default)."""

MAX_PAGES = 100
"""How many pages a listing may have: a server that names a next page after that never stops naming one."""

STDERR_WAIT_SECONDS = 2.0
"""How long a failed local server's stderr may take to reach its end before the reason is given without it."""

PING_SECONDS = 2.0
"""How long a server whose call failed has to answer a ping before it counts as gone."""

StatusName: TypeAlias = Literal["connected", "failed", "disabled"]
Cursor: TypeAlias = "types.PaginatedRequestParams | None"
Page = TypeVar("Page", bound="types.PaginatedResult")
ServerConfig: TypeAlias = McpLocalConfig | McpRemoteConfig


@frozen
class McpStatus:
    """OpenCode's `MCPStatus`: connected, failed (with the reason) or disabled."""

    status: StatusName
    error: str | None = None


PENDING = McpStatus("failed", "still starting")


def failure_reason(error: BaseException) -> str:
    """A failure as one line: the first real exception of a group, its message or its type."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, McpRequestError):
        return error.reason  # the status is the server's already: no need to name it again
    return str(error) or type(error).__name__


@define
class ServerConnection:
    """A started (or failed) server: its tools, its capabilities, and the session to call them on."""

    name: str
    config: ServerConfig
    env: Mapping[str, str]
    directory: Path
    call_timeout_ms: int | None = None
    """Per request: the server's `timeout`, else `experimental.mcp_timeout`, else the SDK's 60 s."""
    contain: Contain | None = None
    """How a local server is contained (the shell sandbox), or None to start it as configured."""
    status: McpStatus = PENDING
    tools: tuple[types.Tool, ...] = ()
    capabilities: types.ServerCapabilities | None = None
    instructions: str | None = None
    _session: ClientSession | None = field(default=None, init=False)
    _settled: anyio.Event = field(factory=anyio.Event, init=False)
    _scope: anyio.CancelScope = field(factory=anyio.CancelScope, init=False)
    tools_revision: int = field(default=0, init=False)
    """Counts the times the tools were listed again (the server said they changed)."""
    _group: TaskGroup | None = field(default=None, init=False)
    _stderr: StderrTail | None = field(default=None, init=False)

    @property
    def start_timeout_ms(self) -> int:
        return self.config.timeout or START_TIMEOUT_MS

    async def wait_started(self) -> McpStatus:
        await self._settled.wait()
        return self.status

    async def run(self) -> None:
        """The server's task: start it within its timeout, then hold it open until `close`."""
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._time_start)
            with self._scope:
                try:
                    await self._serve()
                    reason = "Connection closed"  # its stream ended: a local server exited
                except Exception as error:  # a broken server is a status, never a crash of the runtime
                    reason = failure_reason(error)
                self._fail(await self._with_stderr(reason))
            group.cancel_scope.cancel()
        self._group = None
        self._session = None
        if self.status.status == "connected":
            self.status = McpStatus("failed", "Connection closed")

    def close(self) -> None:
        self._scope.cancel()

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> types.CallToolResult:
        session = self._live()
        try:
            result = await session.call_tool(name, dict(arguments), read_timeout_seconds=self._seconds())
        except Exception:
            await self._check_alive(session)
            raise
        from mcp import types

        if not isinstance(result, types.CallToolResult):
            raise RuntimeError(f"MCP server {self.name!r} answered tools/call with {type(result).__name__}")
        return result

    async def read_resource(self, uri: str) -> types.ReadResourceResult:
        with anyio.fail_after(self._seconds()):
            return await self._live().read_resource(uri)

    async def resources(self) -> list[types.Resource]:
        session = self._live()
        pages = await self._every_page("resources/list", lambda params: session.list_resources(params=params))
        return [resource for page in pages for resource in page.resources]

    async def resource_templates(self) -> list[types.ResourceTemplate]:
        session = self._live()
        pages = await self._every_page(
            "resources/templates/list", lambda params: session.list_resource_templates(params=params)
        )
        return [template for page in pages for template in page.resource_templates]

    async def prompts(self) -> list[types.Prompt]:
        session = self._live()
        pages = await self._every_page("prompts/list", lambda params: session.list_prompts(params=params))
        return [prompt for page in pages for prompt in page.prompts]

    async def _every_page(self, method: str, fetch: Callable[[Cursor], Awaitable[Page]]) -> list[Page]:
        """Every page of a paginated listing, each request bounded by the call timeout.

        A server that names a cursor it named before, or names a next page past `MAX_PAGES`, would keep the
        loop (and its memory) growing for ever: either is an `McpRequestError` saying so."""
        pages: list[Page] = []
        seen: set[str] = set()
        cursor: str | None = None
        while True:
            with answering(self.name, method, self.call_timeout_ms):
                page = await fetch(_page(cursor))
            pages.append(page)
            if (cursor := page.next_cursor) is None:
                return pages
            if cursor in seen:
                raise McpRequestError(self.name, f"sent a {method} cursor a second time, so its listing never ends")
            if len(pages) == MAX_PAGES:
                raise McpRequestError(
                    self.name, f"had more than {MAX_PAGES} pages of {method}; the listing was stopped"
                )
            seen.add(cursor)

    async def prompt_text(self, name: str, arguments: Mapping[str, str]) -> str:
        """A prompt's messages with `arguments` filled in, their texts one per line (as OpenCode joins them)."""
        from mcp import types

        with answering(self.name, f'prompts/get "{name}"', self.call_timeout_ms):
            result = await self._live().get_prompt(name, dict(arguments))
        return "\n".join(m.content.text if isinstance(m.content, types.TextContent) else "" for m in result.messages)

    @property
    def has_prompts(self) -> bool:
        return self.status.status == "connected" and bool(self.capabilities and self.capabilities.prompts)

    @property
    def has_resources(self) -> bool:
        return self.status.status == "connected" and bool(self.capabilities and self.capabilities.resources)

    # -- starting ------------------------------------------------------------------------------------------

    async def _time_start(self) -> None:
        with anyio.move_on_after(self.start_timeout_ms / 1000):
            await self._settled.wait()
            return
        self._settle(McpStatus("failed", f"did not start within {self.start_timeout_ms} ms"))
        self._scope.cancel()

    async def _serve(self) -> None:
        """Connect, then hold the connection until the server's stream ends (it exited) or `close`."""
        with needing("mcp", f"the MCP server {self.name!r}"):
            import mcp  # noqa: F401  (checked before a local server is spawned for nothing)
        if isinstance(self.config, McpLocalConfig):
            async with AsyncExitStack() as stack:
                ended = await self._connect(stack, await self._local_streams(stack))
                await ended.wait()
            return
        attempts = (self._streamable_http_streams, self._sse_streams)
        for attempt, open_streams in enumerate(attempts):
            async with AsyncExitStack() as stack:
                try:
                    ended = await self._connect(stack, await open_streams(stack))
                except Exception:
                    if attempt == len(attempts) - 1:
                        raise
                    continue  # OpenCode's order: streamable HTTP first, then SSE
                await ended.wait()
                return

    async def _connect(self, stack: AsyncExitStack, streams: Any) -> anyio.Event:
        """Initialize a session on `streams` and list the tools; the event is set when the stream ends."""
        from mcp import types
        from mcp.client.session import ClientSession

        read, write = streams
        watched = WatchedStream(read)
        client = types.Implementation(name="strata", version="0.1.0")
        session = ClientSession(watched, write, client_info=client, message_handler=self._on_message)
        await stack.enter_async_context(session)
        initialized = await session.initialize()
        self.capabilities = initialized.capabilities
        self.instructions = (initialized.instructions or "").strip() or None
        self.tools = tuple(await self._list_tools(session)) if initialized.capabilities.tools else ()
        self._session = session
        self._settle(McpStatus("connected"))
        return watched.ended

    async def _on_message(self, message: Any) -> None:
        # Called from the session's read loop, which a request awaited here would stall: list in a task.
        from mcp import types

        if isinstance(message, types.ToolListChangedNotification) and self._group is not None:
            self._group.start_soon(self._list_again)

    async def _list_again(self) -> None:
        """List the tools again after `notifications/tools/list_changed`; a server that fails to answer
        keeps the tools it had."""
        session = self._session
        if session is None:
            return
        try:
            with anyio.fail_after(self._seconds() or START_TIMEOUT_MS / 1000):
                self.tools = tuple(await self._list_tools(session))
        except Exception as error:
            log.warning("mcp.tools_relist_failed", server=self.name, error=failure_reason(error))
            return
        self.tools_revision += 1

    @property
    def offering(self) -> tuple[McpStatus, int]:
        """What decides the tools it offers now: its status (still starting is a status of its own) and its
        tool list's revision."""
        return self.status, self.tools_revision

    async def _list_tools(self, session: ClientSession) -> list[types.Tool]:
        pages = await self._every_page("tools/list", lambda params: session.list_tools(params=params))
        return [tool for page in pages for tool in page.tools]

    async def _local_streams(self, stack: AsyncExitStack) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert isinstance(self.config, McpLocalConfig)
        launch = local_launch(self.config, self.env, self.directory)
        if self.contain is not None:
            launch, finish = await anyio.to_thread.run_sync(self.contain, launch)
            stack.callback(finish)  # after the SDK has ended the server (callbacks run last in, first out)
        # The server's stderr is its own log, kept off the terminal as OpenCode does; its last lines say why it
        # failed, when it does.
        assert self._group is not None
        self._stderr = tail = StderrTail()
        self._group.start_soon(tail.run)
        stack.callback(tail.close_writer)  # also when it cannot be spawned: the reader then ends
        parameters = StdioServerParameters(
            command=launch.argv[0], args=list(launch.argv[1:]), env=dict(launch.env), cwd=launch.cwd
        )
        streams = await stack.enter_async_context(stdio_client(parameters, errlog=tail.writer))
        tail.close_writer()  # the server holds its own copy: its exit ends the reader
        return streams

    async def _streamable_http_streams(self, stack: AsyncExitStack) -> Any:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        assert isinstance(self.config, McpRemoteConfig)
        client = await stack.enter_async_context(create_mcp_http_client(headers=dict(self.config.headers)))
        return await stack.enter_async_context(streamable_http_client(self.config.url, http_client=client))

    async def _sse_streams(self, stack: AsyncExitStack) -> Any:
        from mcp.client.sse import sse_client

        assert isinstance(self.config, McpRemoteConfig)
        # The SDK gives the SSE transport's HTTP calls 5 s; a server may take as long as its start allows (a
        # loaded host's first answer took longer), and each request has its own bound (`_seconds`) besides.
        opened = sse_client(self.config.url, headers=dict(self.config.headers), timeout=self.start_timeout_ms / 1000)
        return await stack.enter_async_context(opened)

    async def _check_alive(self, session: ClientSession) -> None:
        """After a failed call: a server that no longer answers a ping is failed ("Connection closed", as
        OpenCode says) and its process ended, so later calls fail at once and status shows it."""
        try:
            with anyio.fail_after(PING_SECONDS):
                await session.send_ping()
        except Exception:
            self.status = McpStatus("failed", "Connection closed")
            self._session = None
            self._scope.cancel()

    def _fail(self, reason: str) -> None:
        """Failed for `reason`, whether it was starting or connected."""
        if self.status.status == "connected":
            self.status = McpStatus("failed", reason)
        self._settle(McpStatus("failed", reason))

    async def _with_stderr(self, reason: str) -> str:
        """`reason` and what a local server last wrote to its stderr (often why it gave up), once it has ended."""
        if self._stderr is None:
            return reason
        with anyio.move_on_after(STDERR_WAIT_SECONDS):
            await self._stderr.done.wait()
        said = self._stderr.text()
        return f"{reason}; its stderr ended with: {said}" if said else reason

    def _settle(self, status: McpStatus) -> None:
        if not self._settled.is_set():
            self.status = status
            self._settled.set()

    def _live(self) -> ClientSession:
        if self._session is None or self.status.status != "connected":
            raise McpRequestError(self.name, f"is not connected ({self.status.error or 'closed'})")
        return self._session

    def _seconds(self) -> float | None:
        return self.call_timeout_ms / 1000 if self.call_timeout_ms is not None else None


def _page(cursor: str | None) -> types.PaginatedRequestParams | None:
    from mcp import types

    return types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
