"""Which tools a model is offered, in which order, with which descriptions (reference §14.1).

A tool is dropped when the model family uses another (OpenCode gives `gpt-` models `apply_patch` instead
of `edit`/`write`), when the agent's rules switch it off entirely (`permission.disabled`), or when the
user's message turns it off. The rest go out sorted by name, as OpenCode sends them; `invalid` never goes
out (it only catches bad calls).

Tools known only at run time (an MCP server's) come from `sources`, asked at each resolve; a source's tool
named like a registered one is left out (the built-in or custom tool keeps its name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from attrs import define, frozen

from strata_core.llm import ModelInfo, ToolDefinition
from strata_core.permission.rules import Ruleset, disabled
from strata_core.tool.builtin.invalid import NAME as INVALID
from strata_core.tool.contract import Tool, ToolTarget

PATCH_TOOL = "apply_patch"
FILE_WRITING_TOOLS = ("edit", "write")


@frozen
class ResolvedTool:
    definition: ToolDefinition
    tool: Tool


def prefers_patch(model: ModelInfo) -> bool:
    """OpenCode's test for models trained on `apply_patch` (GPT-5 style ids, not GPT-4, not open-weight)."""
    model_id = model.id
    return "gpt-" in model_id and "oss" not in model_id and "gpt-4" not in model_id


def _offered_for_model(name: str, model: ModelInfo, registered: set[str]) -> bool:
    # A registry without apply_patch (an embedder's choice) keeps edit/write for patch-preferring models, so
    # such a model can still change files.
    patch = prefers_patch(model) and PATCH_TOOL in registered
    if name == PATCH_TOOL:
        return patch
    if name in FILE_WRITING_TOOLS:
        return not patch
    return True


class ToolSource(Protocol):
    """Tools that exist once something has started (the MCP servers): asked for at every resolve."""

    async def tools(self) -> Sequence[Tool]: ...

    def revision(self) -> int:
        """A number that changes whenever `tools` would answer differently (a server failed, or listed new
        tools): resolved tool sets are reused only while it stays the same."""
        ...

    async def system_block(self, ruleset: Ruleset) -> str | None:
        """What the source adds to the system prompt for a caller with `ruleset` (the servers' instructions)."""
        ...


@define
class ToolRegistry:
    """The tools a session may use; `resolve` picks and describes them for one agent and model."""

    tools: Sequence[Tool]
    sources: Sequence[ToolSource] = ()

    async def system_blocks(self, ruleset: Ruleset) -> str | None:
        """The sources' additions to the system prompt, joined; None when they add nothing."""
        blocks = [block for source in self.sources if (block := await source.system_block(ruleset))]
        return "\n".join(blocks) or None

    def get(self, name: str) -> Tool | None:
        return next((tool for tool in self.tools if tool.name == name), None)

    def sources_revision(self) -> tuple[int, ...]:
        return tuple(source.revision() for source in self.sources)

    @property
    def names(self) -> list[str]:
        return [tool.name for tool in self.tools]

    async def resolve(
        self,
        target: ToolTarget,
        *,
        user_tools: Mapping[str, bool] | None = None,
        extra: Sequence[Tool] = (),
    ) -> list[ResolvedTool]:
        """The tools to offer, sorted by name. `extra` (e.g. `StructuredOutput`) goes through the same filters."""
        registered_names = {tool.name for tool in self.tools}
        found = [tool for source in self.sources for tool in await source.tools()]
        candidates = [*self.tools, *(tool for tool in found if tool.name not in registered_names), *extra]
        registered = {tool.name for tool in candidates}
        offered = [
            tool
            for tool in candidates
            if tool.name != INVALID and _offered_for_model(tool.name, target.model, registered)
        ]
        switched_off = disabled([tool.name for tool in offered], target.ruleset)
        user_tools = user_tools or {}
        kept = [tool for tool in offered if tool.name not in switched_off and user_tools.get(tool.name) is not False]
        kept.sort(key=lambda tool: tool.name)
        return [
            ResolvedTool(ToolDefinition(tool.name, await tool.description(target), tool.parameters()), tool)
            for tool in kept
        ]


def with_custom_tools(builtins: Sequence[Tool], custom: Sequence[Tool]) -> list[Tool]:
    """The built-ins followed by the custom tools; a custom tool named like a built-in takes its place."""
    replaced = {tool.name for tool in custom}
    return [*(tool for tool in builtins if tool.name not in replaced), *custom]


def tool_map(resolved: Sequence[ResolvedTool]) -> dict[str, Tool]:
    """Offered tools by name, for `runner.run_call`."""
    return {item.tool.name: item.tool for item in resolved}
