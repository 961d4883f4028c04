"""Tools: the contract, the public way to define your own, the built-ins OpenCode exposes, the registry, the runner.

A custom tool is a typed function under `@tool`; the schema the model sees comes from its signature and
docstring, and the runner enforces permission for it like for any built-in::

    from strata_core.tool import ToolContext, tool

    @tool
    async def word_count(ctx: ToolContext, path: str, unique: bool = False) -> str:
        \"""Count the words in a text file of the project.

        Args:
            path: The file, relative to the project root.
            unique: Count each distinct word once.
        \"""
        words = (ctx.directory / path).read_text().split()
        return str(len(set(words)) if unique else len(words))

    async with open_runtime(directory, env, tools=[word_count]) as runtime: ...

- Parameters: str, int, float, bool, Literal, Enum, list/tuple/set/dict, `X | None`, attrs classes and
  TypedDicts; a default makes a parameter optional; `Args:` entries describe them. An optional first
  `ToolContext` parameter receives the call's context (session, directories, `ask`) and is not sent.
- Result: a str is the output, a `ToolResult` passes through (title, metadata, attachments), other data is
  sent as JSON. Raise `ToolFailure("...")` (or anything) and the model sees the message as an error result.
- Arguments that break the schema never reach the function: the model gets OpenCode's invalid-arguments
  message and can retry.
- Permission: governed by the tool's name (`"permission": {"word_count": "ask"}`, `"word_*": "deny"`, per
  agent too), or by `@tool(permission="key", permission_patterns=lambda args: [args["path"]])`.
- For full control implement the `Tool` protocol (`tool/contract.py`); `function_schema` derives a schema
  from a function's signature for such a class too.

Wiring, in short::

    tools = builtin_tools(truncation=Truncation.from_paths(paths), instructions=..., skills=..., agents=...,
                          subagents=..., todos=...)
    registry = ToolRegistry(tools)
    offered = await registry.resolve(ToolTarget(agent.name, rules, model))       # definitions for the request
    done = await run_call(tool_map(offered), name, args, ctx, agent_ruleset=agent.permission)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.permission.subagent import child_session_rules
    from strata_core.tool.builtin.apply_patch import ApplyPatchTool
    from strata_core.tool.builtin.bash import DEFAULT_HIDDEN_ENV, BashTool
    from strata_core.tool.builtin.defaults import builtin_tools
    from strata_core.tool.builtin.edit import EditTool
    from strata_core.tool.builtin.glob import GlobTool
    from strata_core.tool.builtin.grep import GrepTool
    from strata_core.tool.builtin.invalid import InvalidTool
    from strata_core.tool.builtin.plan_exit import PlanExitTool
    from strata_core.tool.builtin.read import InstructionText, NearbyInstructions, ReadTool
    from strata_core.tool.builtin.skill import SkillLike, SkillSource, SkillTool
    from strata_core.tool.builtin.structured_output import StructuredOutputTool
    from strata_core.tool.builtin.task import AgentCatalog, AgentLike, SubagentOutcome, SubagentRunner, TaskTool
    from strata_core.tool.builtin.todowrite import InMemoryTodoStore, Todo, TodoStore, TodoWriteTool
    from strata_core.tool.builtin.webfetch import WebFetchTool
    from strata_core.tool.builtin.write import WriteTool
    from strata_core.tool.contract import (
        Attachment,
        JSONSchema,
        Tool,
        ToolContext,
        ToolFailure,
        ToolPermission,
        ToolResult,
        ToolTarget,
    )
    from strata_core.tool.function_tool import FunctionTool, tool
    from strata_core.tool.registry import ResolvedTool, ToolRegistry, tool_map
    from strata_core.tool.runner import ToolCallOutcome, ToolRunOutcome, run_call, run_tool
    from strata_core.tool.schema import FunctionSchema, ToolDefinitionError, function_schema
    from strata_core.tool.support.search import Search
    from strata_core.tool.truncation import TruncatedOutput, Truncation

# Imported on first use: `strata_core.tool.contract` is imported widely, and the tools pull in tree-sitter,
# markdownify, jsonschema and httpx, which a command that only prints help should not pay for.
_EXPORTS: dict[str, str] = {
    "DEFAULT_HIDDEN_ENV": "strata_core.tool.builtin.bash",
    "PlanExitTool": "strata_core.tool.builtin.plan_exit",
    "AgentCatalog": "strata_core.tool.builtin.task",
    "AgentLike": "strata_core.tool.builtin.task",
    "ApplyPatchTool": "strata_core.tool.builtin.apply_patch",
    "Attachment": "strata_core.tool.contract",
    "BashTool": "strata_core.tool.builtin.bash",
    "EditTool": "strata_core.tool.builtin.edit",
    "FunctionSchema": "strata_core.tool.schema",
    "FunctionTool": "strata_core.tool.function_tool",
    "GlobTool": "strata_core.tool.builtin.glob",
    "GrepTool": "strata_core.tool.builtin.grep",
    "InMemoryTodoStore": "strata_core.tool.builtin.todowrite",
    "InstructionText": "strata_core.tool.builtin.read",
    "InvalidTool": "strata_core.tool.builtin.invalid",
    "JSONSchema": "strata_core.tool.contract",
    "NearbyInstructions": "strata_core.tool.builtin.read",
    "ReadTool": "strata_core.tool.builtin.read",
    "ResolvedTool": "strata_core.tool.registry",
    "Search": "strata_core.tool.support.search",
    "SkillLike": "strata_core.tool.builtin.skill",
    "SkillSource": "strata_core.tool.builtin.skill",
    "SkillTool": "strata_core.tool.builtin.skill",
    "StructuredOutputTool": "strata_core.tool.builtin.structured_output",
    "SubagentOutcome": "strata_core.tool.builtin.task",
    "SubagentRunner": "strata_core.tool.builtin.task",
    "TaskTool": "strata_core.tool.builtin.task",
    "Todo": "strata_core.tool.builtin.todowrite",
    "TodoStore": "strata_core.tool.builtin.todowrite",
    "TodoWriteTool": "strata_core.tool.builtin.todowrite",
    "Tool": "strata_core.tool.contract",
    "ToolCallOutcome": "strata_core.tool.runner",
    "ToolContext": "strata_core.tool.contract",
    "ToolDefinitionError": "strata_core.tool.schema",
    "ToolFailure": "strata_core.tool.contract",
    "ToolPermission": "strata_core.tool.contract",
    "ToolRegistry": "strata_core.tool.registry",
    "ToolResult": "strata_core.tool.contract",
    "ToolRunOutcome": "strata_core.tool.runner",
    "ToolTarget": "strata_core.tool.contract",
    "TruncatedOutput": "strata_core.tool.truncation",
    "Truncation": "strata_core.tool.truncation",
    "WebFetchTool": "strata_core.tool.builtin.webfetch",
    "WriteTool": "strata_core.tool.builtin.write",
    "builtin_tools": "strata_core.tool.builtin.defaults",
    "child_session_rules": "strata_core.permission.subagent",
    "function_schema": "strata_core.tool.schema",
    "run_call": "strata_core.tool.runner",
    "run_tool": "strata_core.tool.runner",
    "tool": "strata_core.tool.function_tool",
    "tool_map": "strata_core.tool.registry",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


__all__ = [
    "DEFAULT_HIDDEN_ENV",
    "AgentCatalog",
    "AgentLike",
    "ApplyPatchTool",
    "Attachment",
    "BashTool",
    "EditTool",
    "FunctionSchema",
    "FunctionTool",
    "GlobTool",
    "GrepTool",
    "InMemoryTodoStore",
    "InstructionText",
    "InvalidTool",
    "JSONSchema",
    "NearbyInstructions",
    "PlanExitTool",
    "ReadTool",
    "ResolvedTool",
    "Search",
    "SkillLike",
    "SkillSource",
    "SkillTool",
    "StructuredOutputTool",
    "SubagentOutcome",
    "SubagentRunner",
    "TaskTool",
    "Todo",
    "TodoStore",
    "TodoWriteTool",
    "Tool",
    "ToolCallOutcome",
    "ToolContext",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolPermission",
    "ToolRegistry",
    "ToolResult",
    "ToolRunOutcome",
    "ToolTarget",
    "TruncatedOutput",
    "Truncation",
    "WebFetchTool",
    "WriteTool",
    "builtin_tools",
    "child_session_rules",
    "function_schema",
    "run_call",
    "run_tool",
    "tool",
    "tool_map",
]
