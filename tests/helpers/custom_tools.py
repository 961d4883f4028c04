"""A custom tool as an embedding application writes one, for the tests that embed Strata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import define, field

from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget


@define
class RecordingTool:
    """A custom tool taking one string `argument`: it records each value it runs with in `calls` and answers
    `answer` with the value put in (`"Sunny in {}"`), titled by the value. Its permission is its name with the
    value as the pattern, so a config rule (`{"permission": {NAME: "ask"}}`) decides its calls."""

    name: str
    argument: str
    purpose: str
    """Its description, as the model is shown it."""
    answer: str
    calls: list[str] = field(factory=list)

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {self.argument: {"type": "string"}}, "required": [self.argument]}

    async def description(self, target: ToolTarget) -> str:
        return self.purpose

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        return ToolPermission(self.name, (args[self.argument],))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        value = args[self.argument]
        self.calls.append(value)
        return ToolResult(self.answer.format(value), title=value)
