"""The `invalid` tool: where a call to an unknown tool, or with unreadable arguments, is redirected.

Like OpenCode (which repairs such calls through the AI SDK), the call is rewritten to `invalid` with the
original name and the reason, and the tool answers with that reason, so the model can correct itself. It
is never offered to the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from strata_core.tool.contract import JSONSchema, ToolContext, ToolPermission, ToolResult, ToolTarget

NAME = "invalid"

PARAMETERS: JSONSchema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"tool": {"type": "string"}, "error": {"type": "string"}},
    "required": ["tool", "error"],
}


def unavailable_tool_message(name: str, available: Iterable[str]) -> str:
    """The reason given for a call to a tool that is not offered (the AI SDK's wording, which models know)."""
    names = sorted({*available, NAME})
    return f"Model tried to call unavailable tool '{name}'. Available tools: {', '.join(names)}."


def invalid_input_message(name: str, detail: str) -> str:
    """The reason given when a call's arguments are not even JSON."""
    return f"Invalid input for tool {name}: {detail}"


class InvalidTool:
    @property
    def name(self) -> str:
        return NAME

    def parameters(self) -> JSONSchema:
        return PARAMETERS

    async def description(self, target: ToolTarget) -> str:
        return "Never call this tool."

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        # Only reports why a call could not run: refusing that would hide the reason from the model.
        return None

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(
            output=f"The arguments provided to the tool are invalid: {args['error']}",
            title="Invalid Tool",
        )
