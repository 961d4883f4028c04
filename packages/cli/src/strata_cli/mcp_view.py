"""MCP servers as `strata mcp list`, `strata debug prompt` and `/mcp` show them: status, reason, tools."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING, Any

from attrs import frozen

if TYPE_CHECKING:
    from strata_cli.app import AppContainer
    from strata_core.config import ConfigInfo
    from strata_core.mcp import McpServers
    from strata_core.permission import Rule


@frozen
class ServerView:
    name: str
    status: str
    error: str | None
    tools: tuple[str, ...]


async def server_views(servers: McpServers) -> list[ServerView]:
    """Every configured server once it has started or failed, with the tools it offers."""
    from strata_core.mcp import McpTool

    statuses = await servers.started()
    offered = [tool for tool in await servers.tools() if isinstance(tool, McpTool)]
    return [
        ServerView(name, status.status, status.error, tuple(t.name for t in offered if t.server == name))
        for name, status in statuses.items()
    ]


async def start_servers(stack: AsyncExitStack, container: AppContainer, config: ConfigInfo) -> McpServers | None:
    """The config's servers started (no runtime, no model) until `stack` closes; None without an `mcp` block."""
    if not config.blocks.mcp:
        return None
    from strata_core.mcp import configured_servers

    project = await container.core.project().info()
    running = configured_servers(config, env=container.env(), paths=container.core.paths(), project=project)
    return await stack.enter_async_context(running)


async def configured_views(container: AppContainer, config: ConfigInfo) -> list[ServerView]:
    """Start the config's servers, look at them, close them."""
    async with AsyncExitStack() as stack:
        servers = await start_servers(stack, container, config)
        return await server_views(servers) if servers is not None else []


def offered_to(views: Sequence[ServerView], ruleset: Sequence[Rule]) -> list[ServerView]:
    """The views with only the tools an agent with `ruleset` is offered (a denied tool is left out)."""
    from strata_core.permission import disabled

    return [
        ServerView(v.name, v.status, v.error, tuple(t for t in v.tools if t not in disabled(v.tools, ruleset)))
        for v in views
    ]


def views_json(views: Sequence[ServerView]) -> list[dict[str, Any]]:
    return [
        {"name": v.name, "status": v.status, **({"error": v.error} if v.error else {}), "tools": list(v.tools)}
        for v in views
    ]


def views_rows(views: Sequence[ServerView]) -> list[tuple[str, str, str, str]]:
    """NAME, STATUS, TOOLS (a count), DETAIL (the reason of a failure)."""
    return [(v.name, v.status, str(len(v.tools)), v.error or "") for v in views]
