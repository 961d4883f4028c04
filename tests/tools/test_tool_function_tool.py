"""`@tool`: a typed function becomes a Tool whose arguments arrive typed and whose return is the result."""

from __future__ import annotations

import enum
import threading
from typing import Any, NotRequired, TypedDict

import attrs
import pytest
from tool_fakes import Asker, MakeContext, rules

from strata_core.llm import ModelInfo
from strata_core.tool import Tool, ToolContext, ToolFailure, ToolPermission, ToolResult, ToolTarget, tool
from strata_core.tool.runner import run_tool
from strata_core.tool.schema import ToolDefinitionError
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

TARGET = ToolTarget("build", (), ModelInfo("mock", "mock-model"))


class Mode(enum.Enum):
    FAST = "fast"
    CAREFUL = "careful"


@attrs.frozen
class Span:
    start: int
    end: int = 0


class Window(TypedDict):
    width: int
    height: NotRequired[int]


seen: list[Any] = []


@tool
async def inspect_args(
    ctx: ToolContext,
    mode: Mode,
    span: Span,
    pair: tuple[int, str],
    window: Window,
    either: int | str,
    maybe: Span | None = None,
    count: float = 1.5,
) -> str:
    """Record what arrived.

    Args:
        mode: How hard to try.
    """
    seen.append((ctx.session_id, mode, span, pair, window, either, maybe, count))
    return "recorded"


async def test_a_decorated_function_is_a_tool_named_and_described_by_its_definition() -> None:
    as_tool: Tool = inspect_args  # mypy checks that a FunctionTool satisfies the protocol
    assert as_tool.name == "inspect_args"
    assert await as_tool.description(TARGET) == "Record what arrived."
    assert inspect_args.parameters()["required"] == ["mode", "span", "pair", "window", "either"]
    assert inspect_args.parameters()["properties"]["mode"]["description"] == "How hard to try."


async def test_arguments_arrive_as_the_annotated_types_and_defaults_fill_the_rest(ctx: ToolContext) -> None:
    seen.clear()
    args = {"mode": "careful", "span": {"start": 3}, "pair": [1, "a"], "window": {"width": 5}, "either": "x"}
    result = await inspect_args.execute(args, ctx)
    assert result == ToolResult(output="recorded")
    assert seen == [("ses_test", Mode.CAREFUL, Span(3), (1, "a"), {"width": 5}, "x", None, 1.5)]


async def test_an_integer_for_a_float_and_an_optional_object_are_converted(ctx: ToolContext) -> None:
    seen.clear()
    args = {"mode": "fast", "span": {"start": 1, "end": 2}, "pair": [0, ""], "window": {"width": 1, "height": 2}}
    await inspect_args.execute({**args, "either": 7, "maybe": {"start": 9}, "count": 2}, ctx)
    (call,) = seen
    assert call[5:] == (7, Span(9), 2.0) and isinstance(call[7], float)


async def test_name_description_and_permission_can_be_given() -> None:
    @tool(name="fetch-page", description="Get a page.", permission="webfetch", permission_patterns=lambda a: [a["url"]])
    def fetch(url: str) -> str:
        """Ignored docstring."""
        return url

    assert fetch.name == "fetch-page"
    assert await fetch.description(TARGET) == "Get a page."
    assert fetch.permission({"url": "https://x.test/a"}) == ToolPermission(
        "webfetch", ("https://x.test/a",), metadata={"input": {"url": "https://x.test/a"}}
    )


def test_by_default_a_tool_is_governed_by_its_own_name_for_every_call() -> None:
    needed = inspect_args.permission({"mode": "fast"})
    assert (needed.key, needed.patterns, needed.always) == ("inspect_args", ("*",), ("*",))


async def test_a_sync_function_runs_in_a_worker_thread(ctx: ToolContext) -> None:
    @tool
    def where() -> str:
        """Say which thread runs this."""
        return threading.current_thread().name

    result = await where.execute({}, ctx)
    assert result.output != threading.current_thread().name


@pytest.mark.parametrize(
    ("value", "output"),
    [
        ("plain text", "plain text"),
        (None, ""),
        ({"hits": [1, 2], "more": False}, '{"hits": [1, 2], "more": false}'),
        (Span(1, 2), '{"start": 1, "end": 2}'),
        (["ü"], '["ü"]'),
    ],
)
async def test_the_return_value_becomes_the_output(value: Any, output: str, ctx: ToolContext) -> None:
    @tool
    async def give() -> Any:
        """Return the value."""
        return value

    assert (await give.execute({}, ctx)).output == output


async def test_a_returned_tool_result_passes_through(ctx: ToolContext) -> None:
    made = ToolResult(output="x", title="T", metadata={"k": 1})

    @tool
    async def give() -> ToolResult:
        """Return a result."""
        return made

    assert await give.execute({}, ctx) is made


@tool
async def explode(n: int) -> str:
    """Fail on purpose."""
    if n == 0:
        raise ToolFailure("n must not be zero")
    raise RuntimeError(f"broke on {n}")


@pytest.mark.parametrize(("n", "error"), [(0, "n must not be zero"), (3, "broke on 3")])
async def test_what_the_function_raises_is_an_error_result_not_a_crash(
    n: int, error: str, make_ctx: MakeContext, asker: Asker, truncation: Truncation
) -> None:
    outcome = await run_tool(explode, {"n": n}, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert outcome.is_error and not outcome.blocked and outcome.error == error


async def test_invalid_arguments_come_back_in_opencodes_words(
    make_ctx: MakeContext, asker: Asker, truncation: Truncation
) -> None:
    outcome = await run_tool(explode, {"n": "three"}, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert outcome.error == (
        'The explode tool was called with invalid arguments: SchemaError(Expected number, got "three"\n'
        '  at ["n"]).\nPlease rewrite the input so it satisfies the expected schema.'
    )
    assert asker.calls == []


@attrs.frozen
class Positive:
    value: int = attrs.field(validator=attrs.validators.gt(0))


@tool
async def positive(item: Positive) -> str:
    """Take a positive number."""
    return "ok"


async def test_an_argument_the_type_itself_refuses_is_an_invalid_arguments_error(
    make_ctx: MakeContext, truncation: Truncation
) -> None:
    # An attrs validator the schema cannot express: reported as the model's mistake to fix, not a crash.
    outcome = await run_tool(positive, {"item": {"value": -1}}, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert outcome.error is not None and not outcome.blocked
    assert outcome.error.startswith("The positive tool was called with invalid arguments: ")
    assert outcome.error.endswith("Please rewrite the input so it satisfies the expected schema.")


async def test_the_runner_asks_the_tools_own_permission_before_running_it(
    make_ctx: MakeContext, asker: Asker, truncation: Truncation
) -> None:
    asker.rules = rules({"*": "allow", "inspect_args": "deny"})
    seen.clear()
    args = {"mode": "fast", "span": {"start": 1}, "pair": [1, "a"], "window": {"width": 1}, "either": 1}
    outcome = await run_tool(inspect_args, args, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert outcome.is_error and outcome.error is not None
    assert outcome.error.startswith(
        "The user has specified a rule which prevents you from using this specific tool call"
    )
    assert seen == []
    assert [(a.permission, a.patterns) for a in asker.calls] == [("inspect_args", ["*"])]


def no_docstring(x: int) -> str:
    return str(x)


@pytest.mark.parametrize(
    ("make", "complaint"),
    [
        (lambda: tool(no_docstring), "give it a docstring"),
        (lambda: tool(name="has space")(no_docstring), "tool name 'has space'"),
        (lambda: tool(name="x" * 65, description="d")(no_docstring), "1 to 64 letters"),
    ],
)
def test_a_tool_without_a_usable_name_or_description_is_refused_at_definition(make: Any, complaint: str) -> None:
    with pytest.raises(ToolDefinitionError, match=complaint):
        make()
