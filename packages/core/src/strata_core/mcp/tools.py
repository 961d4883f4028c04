"""A server's tool as a Strata tool: named `<server>_<tool>`, described and shaped as OpenCode offers it.

Names are sanitised as OpenCode sanitises them (every character outside `[a-zA-Z0-9_-]` becomes `_`). The
schema is the server's input schema, made an object with its properties (an empty map when it has none)
and no other properties. Permission is asked under the tool's own name with the pattern `*`, so
`"permission": {"time_*": "deny"}` (or `"tools": {"time_*": false}`) switches a server's tools off and
`"ask"` asks before each call, through the same runner as the built-ins. Output goes through the runner's
truncation (the built-ins' limits and saved-output rule); cancelling the call cancels the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attrs import frozen

from strata_core.mcp.connection import ServerConnection
from strata_core.mcp.results import call_result
from strata_core.tool.contract import JSONSchema, ToolContext, ToolPermission, ToolResult, ToolTarget

if TYPE_CHECKING:
    from mcp import types

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize(name: str) -> str:
    return _UNSAFE.sub("_", name)


def tool_name(server: str, tool: str) -> str:
    """The name a server's tool is offered under: `sanitize(server) + "_" + sanitize(tool)`."""
    return f"{sanitize(server)}_{sanitize(tool)}"


def input_schema(tool: types.Tool) -> dict[str, Any]:
    schema = dict(tool.input_schema)
    return {**schema, "type": "object", "properties": schema.get("properties") or {}, "additionalProperties": False}


@frozen
class McpTool:
    """One tool of one connected server."""

    name: str
    definition: types.Tool
    connection: ServerConnection

    @property
    def server(self) -> str:
        return self.connection.name

    def parameters(self) -> JSONSchema:
        return input_schema(self.definition)

    async def description(self, target: ToolTarget) -> str:
        return self.definition.description or ""

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return ToolPermission(self.name, ("*",), ("*",), {})

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        converted = call_result(await self.connection.call_tool(self.definition.name, args))
        return ToolResult(output=converted.text, attachments=converted.attachments)
