"""The MCP servers an editor gives a session (`mcpServers` of `session/new`, `session/load`, resume, fork),
started through Strata's MCP service for that session alone and closed with it.

OpenCode's ACP agent turns each entry into an `mcp` config entry (stdio → `local` with `[command, *args]` and
the env pairs as `environment`; http and sse → `remote` with the headers); so does `config_entries`, and the
entries start as the config's own do (`configured_servers`: the shell sandbox for local servers, the
`experimental.mcp_timeout` bound, `<server>_<tool>` names).

`SessionMcp` is one `ToolSource` of the runtime's tool registry for every session: it answers with the
servers of the session whose turn is running, which `turn_of` names in a context variable around the turn
(the loop runs a turn in the caller's task, and the tasks it starts inherit the variable). Each session's
servers live in a task of the connection's background group, because a server set's task group must be
entered and left by the same task, and `session/new` and `session/close` arrive in different ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, TypeAlias

import anyio
from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer
from attrs import define, field

from strata_core.config import McpLocalConfig, McpRemoteConfig, McpServerConfig
from strata_core.logging import get_logger

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from strata_core.mcp import McpServers
    from strata_core.permission import Ruleset
    from strata_core.runtime import Runtime
    from strata_core.tool import Tool

log = get_logger(__name__)

ClientMcpServers: TypeAlias = Sequence[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio]
_turn_session: ContextVar[str | None] = ContextVar("strata_acp_turn_session", default=None)


def config_entries(servers: ClientMcpServers) -> dict[str, McpServerConfig]:
    """The client's servers as `mcp` config entries, by name (a later entry of one name replaces an earlier)."""
    entries: dict[str, McpServerConfig] = {}
    for server in servers:
        if isinstance(server, McpServerStdio):
            environment = {variable.name: variable.value for variable in server.env}
            entries[server.name] = McpLocalConfig(command=(server.command, *server.args), environment=environment)
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            # A remote server is tried over streamable HTTP, then SSE, whichever the client named.
            headers = {header.name: header.value for header in server.headers}
            entries[server.name] = McpRemoteConfig(url=server.url, headers=headers)
        else:  # MCP over ACP: not advertised (`mcpCapabilities` has no `acp`), so a client should not send it
            log.warning("acp.mcp_server_unsupported", name=server.name, type=server.type)
    return entries


@contextmanager
def turn_of(session_id: str) -> Iterator[None]:
    """Inside: the registry's tools include `session_id`'s servers."""
    token = _turn_session.set(session_id)
    try:
        yield
    finally:
        _turn_session.reset(token)


@define
class _Running:
    """One session's servers: started by their task, which holds them open until `stop` is set."""

    servers: McpServers | None = None
    ready: anyio.Event = field(factory=anyio.Event)
    stop: anyio.Event = field(factory=anyio.Event)
    done: anyio.Event = field(factory=anyio.Event)


@define
class SessionMcp:
    """Every session's client-given servers; a `ToolSource` answering for the session of the running turn."""

    runtime: Runtime
    background: TaskGroup
    _sessions: dict[str, _Running] = field(factory=dict, init=False)

    def install(self) -> None:
        """Join the runtime's tool registry as one more source (after the config's servers, if any)."""
        registry = self.runtime.container.registry()
        registry.sources = (*registry.sources, self)

    async def open(self, session_id: str, servers: ClientMcpServers) -> None:
        """Start `servers` for `session_id` (in the background: a turn waits for them, each within its
        timeout), replacing the servers it had; none given keeps those it has."""
        entries = config_entries(servers)
        if not entries:
            return
        await self.close(session_id)
        running = self._sessions[session_id] = _Running()
        self.background.start_soon(self._hold, running, entries)
        await running.ready.wait()

    async def close(self, session_id: str) -> None:
        """Stop the session's servers (their processes end), if it has any."""
        running = self._sessions.pop(session_id, None)
        if running is not None:
            running.stop.set()
            await running.done.wait()

    async def _hold(self, running: _Running, entries: dict[str, McpServerConfig]) -> None:
        from strata_core.mcp import configured_servers

        runtime = self.runtime
        c = runtime.container
        starting = configured_servers(
            runtime.config, env=c.env(), paths=c.paths(), project=runtime.project, bus=runtime.bus, servers=entries
        )
        try:
            async with starting as servers:
                running.servers = servers
                running.ready.set()
                await running.stop.wait()
        finally:
            running.ready.set()
            running.done.set()

    def _current(self) -> McpServers | None:
        session_id = _turn_session.get()
        running = self._sessions.get(session_id) if session_id is not None else None
        return running.servers if running is not None else None

    # -- ToolSource -------------------------------------------------------------------------------------

    async def tools(self) -> Sequence[Tool]:
        servers = self._current()
        return await servers.tools() if servers is not None else ()

    def revision(self) -> int:
        # The session is part of the number: resolved tool sets are cached by it, and two sessions' servers
        # offer different tools.
        servers = self._current()
        return hash((_turn_session.get(), id(servers), servers.revision() if servers is not None else 0))

    async def system_block(self, ruleset: Ruleset) -> str | None:
        servers = self._current()
        return await servers.system_block(ruleset) if servers is not None else None
