"""The `StructuredOutput` tool: how a model hands back its final answer when the user asked for JSON.

Built per request from the user's schema (reference §1.4). The runner validates the arguments against that
schema before `execute` runs, so `execute` only has to keep them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import define, field

from strata_core.tool.contract import JSONSchema, ToolContext, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.descriptions import read_prompt

NAME = "StructuredOutput"
DESCRIPTION_FILE = "reminders/structured_output_tool.txt"


def tool_schema(user_schema: JSONSchema) -> dict[str, Any]:
    """The user's schema as the tool's parameters: the top-level `$schema` key goes, the rest is kept."""
    return {key: value for key, value in user_schema.items() if key != "$schema"}


@define
class StructuredOutputTool:
    """Captures the model's structured answer; `on_capture` receives the validated arguments."""

    schema: JSONSchema
    on_capture: Callable[[Mapping[str, Any]], None] | None = None
    captured: Mapping[str, Any] | None = field(default=None, init=False)

    @property
    def name(self) -> str:
        return NAME

    def parameters(self) -> JSONSchema:
        return tool_schema(self.schema)

    async def description(self, target: ToolTarget) -> str:
        return read_prompt(DESCRIPTION_FILE).strip()

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        # The answer itself, not an action: OpenCode never asks for it, even of agents that deny every tool.
        return None

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.captured = dict(args)
        if self.on_capture is not None:
            self.on_capture(self.captured)
        return ToolResult(
            output="Structured output captured successfully.",
            title="Structured Output",
            metadata={"valid": True},
        )
