"""`list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`: the servers' resources as tools.

Offered while any connected server has the resources capability, with OpenCode's names, parameters,
outputs and permission: each asks `read` for `mcp:<server>:*` (reading one resource: `mcp:<server>:<uri>`,
"always" approving the whole server), so `"permission": {"read": "deny"}` switches them off with the read
tool. A server whose listing fails is left out of a listing, as OpenCode leaves it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

import anyio
from attrs import frozen

from strata_core.logging import get_logger
from strata_core.mcp.connection import ServerConnection, failure_reason
from strata_core.mcp.results import listing_json, resource_contents
from strata_core.tool.contract import JSONSchema, Tool, ToolContext, ToolFailure, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.descriptions import tool_description

log = get_logger(__name__)
LIST = "list_mcp_resources"
LIST_TEMPLATES = "list_mcp_resource_templates"
READ = "read_mcp_resource"
RESOURCE_TOOLS = (LIST, LIST_TEMPLATES, READ)


class ResourceServers(Protocol):
    """What the resource tools need of the running servers (`servers.McpServers` is one)."""

    @property
    def connections(self) -> Mapping[str, ServerConnection]: ...

    def resource_servers(self) -> list[ServerConnection]:
        """The connected servers that offer resources, by name."""
        ...


def _server_parameter(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


_LIST_SCHEMA = {
    "type": "object",
    "properties": {"server": _server_parameter("The server to list; every connected server when left out.")},
    "additionalProperties": False,
}
_READ_SCHEMA = {
    "type": "object",
    "properties": {
        "server": _server_parameter("The server's name, as list_mcp_resources shows it."),
        "uri": {"type": "string", "description": "The resource's URI, exactly as list_mcp_resources shows it."},
    },
    "required": ["server", "uri"],
    "additionalProperties": False,
}


def _entry(item: Any, server: str) -> dict[str, object]:
    fields: dict[str, object] = item.model_dump(by_alias=True, exclude_none=True, mode="json")
    return {**fields, "server": server}


Fetch = Callable[[ServerConnection], Awaitable[Sequence[Any]]]


@frozen
class _Listing:
    """A listing tool: resources or resource templates, keyed and sorted as OpenCode prints them."""

    name: str
    key: str
    sort_field: str
    label: str
    fetch: Fetch
    servers: ResourceServers

    def parameters(self) -> JSONSchema:
        return _LIST_SCHEMA

    async def description(self, target: ToolTarget) -> str:
        return tool_description(self.name)

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return None  # asked in execute, per server

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        wanted = args.get("server") or None
        available = self.servers.resource_servers()
        names = [c.name for c in available]
        if wanted is not None and wanted not in names:
            raise ToolFailure(_unsupported(wanted, names))
        chosen = [c for c in available if wanted is None or c.name == wanted]
        patterns = [f"mcp:{c.name}:*" for c in chosen]
        await ctx.ask("read", patterns, patterns, {"server": wanted} if wanted else {})
        found: dict[str, Sequence[Any]] = {}

        async def gather(connection: ServerConnection) -> None:
            try:
                found[connection.name] = await self.fetch(connection)
            except Exception as error:  # one server's failure leaves only its entries out
                log.warning("mcp.listing_failed", server=connection.name, tool=self.name, error=failure_reason(error))
                found[connection.name] = ()

        async with anyio.create_task_group() as group:
            for connection in chosen:
                group.start_soon(gather, connection)
        entries = [_entry(item, server) for server, items in found.items() for item in items]
        entries.sort(key=lambda e: f"{e['server']}\0{e.get('name', '')}\0{e.get(self.sort_field, '')}")
        title = f"{self.label}: {wanted}" if wanted else self.label
        metadata: dict[str, Any] = {"count": len(entries), "servers": names, **({"server": wanted} if wanted else {})}
        return ToolResult(output=listing_json(self.key, entries), title=title, metadata=metadata)


def _unsupported(server: str, names: Sequence[str]) -> str:
    if not names:
        return f'MCP server "{server}" does not support resources'
    return f'MCP server "{server}" does not support resources. Available resource servers: {", ".join(names)}'


@frozen
class _ReadResource:
    servers: ResourceServers
    name: str = READ

    def parameters(self) -> JSONSchema:
        return _READ_SCHEMA

    async def description(self, target: ToolTarget) -> str:
        return tool_description(self.name)

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return None  # asked in execute, for the one resource

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        server, uri = str(args["server"]), str(args["uri"])
        connection = self.servers.connections.get(server)
        if connection is None or connection.status.status != "connected":
            raise ToolFailure(f'MCP server "{server}" is not connected')
        if not connection.has_resources:
            raise ToolFailure(f'MCP server "{server}" does not support resources')
        await ctx.ask("read", [f"mcp:{server}:{uri}"], [f"mcp:{server}:*"], {"server": server, "uri": uri})
        try:
            result = await connection.read_resource(uri)
        except Exception as error:
            raise ToolFailure(f"Failed to read MCP resource: {server}/{uri}") from error
        converted, count = resource_contents(server, uri, result)
        metadata = {"server": server, "uri": uri, "contents": count, "attachments": len(converted.attachments)}
        return ToolResult(
            output=converted.text, title=f"MCP resource: {uri}", metadata=metadata, attachments=converted.attachments
        )


async def _resources(connection: ServerConnection) -> Sequence[Any]:
    return await connection.resources()


async def _templates(connection: ServerConnection) -> Sequence[Any]:
    return await connection.resource_templates()


def resource_tools(servers: ResourceServers) -> list[Tool]:
    return [
        _Listing(LIST, "resources", "uri", "MCP resources", _resources, servers),
        _Listing(LIST_TEMPLATES, "resourceTemplates", "uriTemplate", "MCP resource templates", _templates, servers),
        _ReadResource(servers),
    ]
