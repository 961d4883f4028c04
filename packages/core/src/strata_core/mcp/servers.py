"""`McpServers`: every server of the `mcp` config, started together, offered as tools (and their prompts as
commands), closed together.

`McpServersRunning` (an async context manager the runtime enters) starts each enabled server in a task of
one task group and returns at once: nothing waits for a server until tools are resolved for a request, and
that wait is bounded by each server's start timeout. A server that fails is reported once (a
`McpServerFailed` event, published when the first request after the failure resolves its tools, so the
renderer of that turn hears it) and offers no tools. Closing cancels every server's task; the SDK ends each
local server's process group on the way out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

import anyio
from anyio.abc import TaskGroup
from attrs import define, field

from strata_core.bus import Bus, McpServerFailed
from strata_core.config.paths import StrataPaths
from strata_core.config.schema import McpLocalConfig, McpRemoteConfig, McpServerConfig
from strata_core.config.service import ConfigInfo
from strata_core.context.command import CommandInfo
from strata_core.logging import get_logger
from strata_core.mcp.connection import McpStatus, ServerConnection, failure_reason
from strata_core.mcp.launch import Contain, sandboxed
from strata_core.mcp.prompt_commands import prompt_command
from strata_core.mcp.resource_tools import resource_tools
from strata_core.mcp.tools import McpTool, tool_name
from strata_core.permission.rules import Ruleset, disabled
from strata_core.project import ProjectInfo
from strata_core.tool.contract import Tool

log = get_logger(__name__)
DISABLED = McpStatus("disabled")


@define
class McpServers:
    """The configured servers and their state; a `ToolSource` for the registry."""

    connections: dict[str, ServerConnection]
    disabled: tuple[str, ...] = ()
    bus: Bus | None = None
    _reported: set[str] = field(factory=set, init=False)

    async def started(self) -> dict[str, McpStatus]:
        """Every configured server's status once each has started or failed (each within its timeout)."""
        statuses: dict[str, McpStatus] = {name: DISABLED for name in self.disabled}
        for name, connection in self.connections.items():
            statuses[name] = await connection.wait_started()
        self._report_failures(statuses)
        return dict(sorted(statuses.items()))

    async def tools(self) -> Sequence[Tool]:
        """The tools of every connected server (`<server>_<tool>`), and the resource tools when a server
        has resources."""
        await self.started()
        connected = [c for c in self.connections.values() if c.status.status == "connected"]
        offered: list[Tool] = [McpTool(tool_name(c.name, t.name), t, c) for c in connected for t in c.tools]
        if any(c.has_resources for c in connected):
            offered.extend(resource_tools(self))
        return offered

    async def commands(self) -> list[CommandInfo]:
        """The connected servers' prompts as commands (`server:prompt`); a server that fails to list them
        offers none this time."""
        await self.started()
        found: list[CommandInfo] = []
        for connection in sorted(self.connections.values(), key=lambda c: c.name):
            if not connection.has_prompts:
                continue
            try:
                prompts = await connection.prompts()
            except Exception as error:
                log.warning("mcp.prompts_failed", server=connection.name, error=failure_reason(error))
                continue
            found.extend(prompt_command(connection, prompt) for prompt in prompts)
        return found

    def revision(self) -> int:
        """Changes whenever a server connects, fails or lists new tools: the offered tools may differ."""
        return hash(tuple((name, c.offering) for name, c in sorted(self.connections.items())))

    async def system_block(self, ruleset: Ruleset) -> str | None:
        """`<mcp_instructions>`: each connected server's own instructions, as OpenCode adds them to the
        system prompt, for the servers the caller may use at least one tool of (sorted by name)."""
        await self.started()
        servers = []
        for connection in sorted(self.connections.values(), key=lambda c: c.name):
            names = [tool_name(connection.name, tool.name) for tool in connection.tools]
            usable = not names or len(disabled(names, ruleset)) < len(names)
            if connection.status.status == "connected" and connection.instructions and usable:
                servers.append(connection)
        if not servers:
            return None
        lines = ["<mcp_instructions>"]
        for connection in servers:
            assert connection.instructions is not None
            lines.append(f'  <server name="{connection.name}">')
            lines += [f"    {line}" for line in connection.instructions.split("\n")]
            lines.append("  </server>")
        lines.append("</mcp_instructions>")
        return "\n".join(lines)

    def resource_servers(self) -> list[ServerConnection]:
        return sorted((c for c in self.connections.values() if c.has_resources), key=lambda c: c.name)

    def _report_failures(self, statuses: Mapping[str, McpStatus]) -> None:
        for name, status in statuses.items():
            if status.status == "failed" and name not in self._reported:
                self._reported.add(name)
                if self.bus is not None:
                    self.bus.publish(McpServerFailed(name, status.error or "failed"))


def configured_servers(
    config: ConfigInfo,
    *,
    env: Mapping[str, str],
    paths: StrataPaths,
    project: ProjectInfo,
    bus: Bus | None = None,
    servers: Mapping[str, McpServerConfig] | None = None,
) -> McpServersRunning:
    """The config's servers, ready to start: the one way the runtime and the CLI (`strata mcp list`) build them,
    so both bound each request by `experimental.mcp_timeout` by default and start local servers in the shell
    sandbox the config and `--sandbox` put in force, as the model's commands run. `servers` replaces the
    config's `mcp` block (the servers an ACP client gives one session), started under the same rules."""
    from strata_core.sandbox import configured_sandbox, writable_root

    root = writable_root(project.directory, project.worktree)
    return McpServersRunning(
        config.blocks.mcp if servers is None else servers,
        env=env,
        directory=project.directory,
        default_timeout_ms=config.blocks.experimental.mcp_timeout,
        bus=bus,
        contain=sandboxed(configured_sandbox(config, env, paths, project.id), root),
    )


class McpServersRunning:
    """`async with McpServersRunning(config, ...) as servers:`: every enabled server of `config` starting in
    the background, all of them closed on exit.

    `default_timeout_ms` is `experimental.mcp_timeout`, the request timeout of servers without their own;
    `contain` wraps each local server in the containment in force (`launch.sandboxed`). An
    `enabled`-only entry that names no server anywhere is left out, as OpenCode ignores an entry without a
    type. A class rather than an `@asynccontextmanager`: its task group must not span a generator's `yield`.
    """

    def __init__(
        self,
        config: Mapping[str, McpServerConfig],
        *,
        env: Mapping[str, str],
        directory: Path,
        default_timeout_ms: int | None = None,
        bus: Bus | None = None,
        contain: Contain | None = None,
    ) -> None:
        servers = {
            name: server for name, server in config.items() if isinstance(server, McpLocalConfig | McpRemoteConfig)
        }
        connections = {
            name: ServerConnection(name, server, env, directory, server.timeout or default_timeout_ms, contain)
            for name, server in servers.items()
            if server.enabled is not False
        }
        disabled = tuple(name for name, server in servers.items() if server.enabled is False)
        self.servers = McpServers(connections, disabled, bus)
        self._group: TaskGroup | None = None

    async def __aenter__(self) -> McpServers:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        for connection in self.servers.connections.values():
            self._group.start_soon(connection.run)
        return self.servers

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> bool | None:
        for connection in self.servers.connections.values():
            connection.close()
        assert self._group is not None
        return await self._group.__aexit__(kind, error, traceback)
