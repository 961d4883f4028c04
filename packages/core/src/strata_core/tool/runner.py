"""Running one tool call: check the arguments, ask permission, execute, turn failures into results, keep the
output small.

Permission is enforced here for every tool, built-in or custom: the tool's `permission(args)` names the
key and patterns, and the call's `ctx.ask` (the session's permission flow) decides by the agent's rules,
the last match winning: allow runs, deny refuses with OpenCode's message, ask waits for an answer or, with
nobody to answer, refuses at once. A tool that asks for itself (the built-ins) returns `None` there.

Everything a tool can get wrong comes back as a `ToolRunOutcome` the model sees; only cancellation
propagates. A person's "no" (`RejectedError`, or nobody there to say yes) also sets `blocked`, which stops
the turn as OpenCode's processor does; a configured deny or a rejection with feedback does not, so the
model can act on the message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from attrs import evolve, frozen

from strata_core.permission.rules import NoResponderError, PermissionRefusedError, RejectedError, Rule
from strata_core.redaction import redact_text
from strata_core.tool.arguments import first_problem, invalid_arguments_message
from strata_core.tool.builtin.invalid import NAME as INVALID
from strata_core.tool.builtin.invalid import InvalidTool, invalid_input_message, unavailable_tool_message
from strata_core.tool.contract import Tool, ToolContext, ToolFailure, ToolResult
from strata_core.tool.truncation import Truncation


@frozen
class ToolRunOutcome:
    result: ToolResult
    is_error: bool = False
    error: str | None = None
    blocked: bool = False


@frozen
class ToolCallOutcome:
    """A call as it was finally run: an unknown or unreadable call is rewritten to the `invalid` tool."""

    tool_name: str
    input: Mapping[str, Any]
    outcome: ToolRunOutcome


def _failed(message: str, *, blocked: bool = False) -> ToolRunOutcome:
    return ToolRunOutcome(ToolResult(output=message), is_error=True, error=message, blocked=blocked)


def _message(error: BaseException) -> str:
    return str(error) or type(error).__name__


def refused(error: PermissionRefusedError) -> ToolRunOutcome:
    """A permission refusal as the call's result: a plain "no", or an ask nobody can answer, also stops the turn."""
    return _failed(_message(error), blocked=isinstance(error, RejectedError | NoResponderError))


async def _permitted(tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> ToolRunOutcome | None:
    """`None` when the call may run; otherwise the refusal the model sees."""
    needed = tool.permission(args)
    if needed is None:
        return None
    try:
        await ctx.ask(needed.key, needed.patterns, needed.always, needed.metadata)
    except PermissionRefusedError as error:
        return refused(error)
    return None


async def _execute(tool: Tool, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult | ToolRunOutcome:
    try:
        refusal = await _permitted(tool, args, ctx)
        return refusal if refusal is not None else await tool.execute(args, ctx)
    except anyio.get_cancelled_exc_class():
        raise
    except PermissionRefusedError as error:
        return refused(error)
    except ToolFailure as error:
        return _failed(_message(error))
    except Exception as error:  # any defect in a tool is the model's problem to route around, not a crash
        return _failed(_message(error))


async def _keep_small(result: ToolResult, truncation: Truncation, agent_ruleset: Sequence[Rule] | None) -> ToolResult:
    # Tools that cut their own output (read, glob, grep, bash) say so with a `truncated` key. A secret
    # file's content is never handed to truncation, which would save the whole of it to disk.
    if "truncated" in result.metadata or result.secret_files:
        return result
    kept = await truncation.output(result.output, agent_ruleset=agent_ruleset)
    metadata = {**result.metadata, "truncated": kept.truncated}
    if kept.output_path is not None:
        metadata["outputPath"] = str(kept.output_path)
    return evolve(result, output=kept.content, metadata=metadata)


async def run_tool(
    tool: Tool,
    raw_args: Mapping[str, Any] | None,
    ctx: ToolContext,
    *,
    parse_error: str | None = None,
    agent_ruleset: Sequence[Rule] | None,
    truncation: Truncation | None = None,
) -> ToolRunOutcome:
    """Validate `raw_args` against `tool`'s schema, run it, and return what the model should see.

    `parse_error` says the model's arguments were not JSON; the call then gets the `invalid` tool's answer.
    `agent_ruleset` (the agent's own rules) decides the advice in a truncation note.
    """
    truncation = truncation or Truncation.default()
    if parse_error is not None:
        error = invalid_input_message(tool.name, parse_error)
        return await run_tool(
            InvalidTool(), {"tool": tool.name, "error": error}, ctx, agent_ruleset=agent_ruleset, truncation=truncation
        )
    args: Mapping[str, Any] = raw_args if raw_args is not None else {}
    problem = first_problem(tool.parameters(), args)
    if problem is not None:
        return _failed(invalid_arguments_message(tool.name, problem))
    executed = await _execute(tool, args, ctx)
    if isinstance(executed, ToolRunOutcome):
        return executed
    return ToolRunOutcome(await _keep_small(_without_secrets(executed), truncation, agent_ruleset))


def _hidden(text: str) -> str:
    return redact_text(text, userinfo=False, credentials_only=True)


def _without_secrets(result: ToolResult) -> ToolResult:
    """The result with every credential Strata holds (`strata_core.redaction`) hidden from the model and the
    store: a command that prints its environment, a file that holds a configured key. File content is
    otherwise shown as it is (URL userinfo too), so an edit can quote it back."""
    return evolve(result, output=_hidden(result.output), metadata=_hidden_in(result.metadata))


def _hidden_in(value: Any) -> Any:
    """`value` with `_hidden` applied to every string in it, however deep (read's `display` holds the text)."""
    if isinstance(value, str):
        return _hidden(value)
    if isinstance(value, Mapping):
        return {key: _hidden_in(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_hidden_in(item) for item in value]
    return value


def repair_tool_name(name: str, available: Mapping[str, Tool]) -> str | None:
    """The offered tool a call means: its exact name, or the name in lower case (`Read` -> `read`)."""
    if name in available:
        return name
    lowered = name.lower()
    return lowered if lowered in available else None


async def run_call(
    tools: Mapping[str, Tool],
    name: str,
    raw_args: Mapping[str, Any] | None,
    ctx: ToolContext,
    *,
    parse_error: str | None = None,
    agent_ruleset: Sequence[Rule] | None,
    truncation: Truncation | None = None,
) -> ToolCallOutcome:
    """Run a model's call by name among the offered `tools`, rewriting it to `invalid` when it cannot run."""
    target = repair_tool_name(name, tools)
    if target is None or parse_error is not None:
        reason = (
            unavailable_tool_message(name, tools)
            if target is None
            else invalid_input_message(target, parse_error or "")
        )
        invalid_args = {"tool": name, "error": reason}
        outcome = await run_tool(InvalidTool(), invalid_args, ctx, agent_ruleset=agent_ruleset, truncation=truncation)
        return ToolCallOutcome(INVALID, invalid_args, outcome)
    args = raw_args if raw_args is not None else {}
    outcome = await run_tool(tools[target], args, ctx, agent_ruleset=agent_ruleset, truncation=truncation)
    return ToolCallOutcome(target, args, outcome)
