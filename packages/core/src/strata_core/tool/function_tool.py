"""Custom tools from typed functions: `@tool` reads the signature and docstring, `FunctionTool` runs the call.

How to write one, with an example, is in the package's docstring (`strata_core.tool`).

The runner has already checked the arguments against the derived schema when `execute` runs, so here they
are only turned back into the annotated types (an Enum member, an attrs instance, a tuple). A sync function
runs in a worker thread, so blocking work does not stall the session.

Permission: before the call the runner asks the agent's rules for `permission` (the tool's name unless
given), with the patterns `permission_patterns(args)` returns (`*` unless given); so
`"permission": {"word_count": "ask"}` works as it does for a built-in.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, overload

import anyio.to_thread
import cattrs
from attrs import frozen
from cattrs.strategies import configure_union_passthrough

from strata_core.serialization import converter as storage_converter
from strata_core.tool.arguments import invalid_arguments_message
from strata_core.tool.contract import ToolContext, ToolFailure, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.schema import FunctionSchema, ToolDefinitionError, function_schema, typed_dict_fields

ToolFunction = Callable[..., Any]
PatternsOf = Callable[[Mapping[str, Any]], Sequence[str]]
"""The permission patterns of one call, from its (valid, JSON) arguments: a path, a URL, a query."""

# Model providers accept tool names of letters, digits, `_` and `-`, at most 64 characters.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# The storage converter's hooks, plus unions of JSON scalars passed through as they are (`int | str`).
_arguments = storage_converter.copy()
configure_union_passthrough(str | int | float | bool | None, _arguments)


def _structure_typed_dict(value: Mapping[str, Any], cls: Any) -> dict[str, Any]:
    # cattrs reads `__required_keys__`, which Python 3.11 gets wrong for string annotations; the schema
    # has already checked which keys are present, so only their values are converted here.
    fields = typed_dict_fields(cls)
    return {key: _arguments.structure(item, fields[key][0]) for key, item in value.items() if key in fields}


_arguments.register_structure_hook_func(typing.is_typeddict, _structure_typed_dict)


@frozen
class FunctionTool:
    """A `Tool` made from a function by `@tool`; build one with the decorator, not by hand."""

    function: ToolFunction
    name: str
    text: str
    """The description sent to the model."""
    schema: FunctionSchema
    permission_key: str
    permission_patterns: PatternsOf | None = None

    def parameters(self) -> Mapping[str, Any]:
        return self.schema.parameters

    async def description(self, target: ToolTarget) -> str:
        return self.text

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        patterns = tuple(self.permission_patterns(args)) if self.permission_patterns else ("*",)
        return ToolPermission(self.permission_key, patterns, metadata={"input": dict(args)})

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        leading = (ctx,) if self.schema.takes_context else ()
        call = partial(self.function, *leading, **self._arguments(args))
        if inspect.iscoroutinefunction(self.function):
            value = await call()
        else:
            value = await anyio.to_thread.run_sync(call)
        return self._result(value)

    def _arguments(self, args: Mapping[str, Any]) -> dict[str, Any]:
        try:
            return {
                name: _arguments.structure(value, self.schema.annotations[name])
                for name, value in args.items()
                if name in self.schema.annotations
            }
        except (cattrs.BaseValidationError, ValueError, TypeError) as error:
            # The schema let it through but the type refused it (an attrs validator, say): still the model's to fix.
            raise ToolFailure(invalid_arguments_message(self.name, _first_line(error))) from None

    def _result(self, value: Any) -> ToolResult:
        if isinstance(value, ToolResult):
            return value
        if isinstance(value, str):
            return ToolResult(output=value)
        if value is None:
            return ToolResult(output="")
        try:
            return ToolResult(output=json.dumps(_arguments.unstructure(value), ensure_ascii=False))
        except (TypeError, ValueError) as error:
            raise ToolFailure(
                f"The {self.name} tool returned a {type(value).__name__}, which is not text or JSON ({error})"
            ) from None


def _first_line(error: Exception) -> str:
    exceptions = getattr(error, "exceptions", None)
    if exceptions:
        return _first_line(exceptions[0])
    return str(error).splitlines()[0] if str(error) else type(error).__name__


@overload
def tool(function: ToolFunction, /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    permission: str | None = None,
    permission_patterns: PatternsOf | None = None,
) -> Callable[[ToolFunction], FunctionTool]: ...


def tool(
    function: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    permission: str | None = None,
    permission_patterns: PatternsOf | None = None,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Make a tool of a typed (async or sync) function: `@tool` or `@tool(name=..., ...)`.

    Args:
        function: The function; its parameters (after an optional first `ToolContext`) are what the model
            passes, described by the docstring's `Args:` section. It returns a str (the output), a
            `ToolResult`, or JSON data; what it raises becomes an error result the model sees.
        name: The tool's name; the function's name by default.
        description: What the model is told the tool does; the docstring's first paragraph by default.
        permission: The permission key rules are written against; the tool's name by default.
        permission_patterns: This call's permission patterns from its arguments; `["*"]` by default.

    Raises `ToolDefinitionError` at once for a function that cannot become a tool.
    """

    def make(function: ToolFunction) -> FunctionTool:
        return _function_tool(function, name, description, permission, permission_patterns)

    return make if function is None else make(function)


def _function_tool(
    function: ToolFunction,
    name: str | None,
    description: str | None,
    permission: str | None,
    patterns: PatternsOf | None,
) -> FunctionTool:
    schema = function_schema(function)
    tool_name = name or str(getattr(function, "__name__", ""))
    if not _TOOL_NAME.match(tool_name):
        raise ToolDefinitionError(
            f"tool name {tool_name!r}: use 1 to 64 letters, digits, '_' or '-' (what model providers accept)"
        )
    text = description if description is not None else schema.description
    if not text:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: give it a docstring (its first paragraph tells the model what the tool does) "
            "or a description="
        )
    return FunctionTool(function, tool_name, text, schema, permission or tool_name, patterns)
