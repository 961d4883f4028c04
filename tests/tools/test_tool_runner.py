"""The tool runner: argument checks with OpenCode's wording, failures as results, blocking, truncation."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from tool_fakes import rules

from strata_core.permission.rules import CorrectedError, DeniedError, NoResponderError, RejectedError
from strata_core.tool.contract import JSONSchema, Tool, ToolContext, ToolFailure, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.runner import run_call, run_tool
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

SUFFIX = ".\nPlease rewrite the input so it satisfies the expected schema."
RECORDED = json.loads((Path(__file__).parent / "schemas" / "opencode_tool_schemas.json").read_text())


class Scripted:
    """A tool whose `execute` does whatever the test hands it."""

    def __init__(self, behaviour: Any, name: str = "scripted", schema: JSONSchema | None = None) -> None:
        self._behaviour = behaviour
        self._name = name
        self._schema = schema or {"type": "object", "properties": {"n": {"type": "integer"}}}

    @property
    def name(self) -> str:
        return self._name

    def parameters(self) -> JSONSchema:
        return self._schema

    async def description(self, target: ToolTarget) -> str:
        return "scripted"

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return None  # these tests are about arguments and failures; test_tool_permission is about asking

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        result = self._behaviour(args)
        if isinstance(result, BaseException):
            raise result
        if callable(result):
            return await result()  # type: ignore[no-any-return]
        assert isinstance(result, ToolResult)
        return result


def recorded(name: str) -> Scripted:
    """A tool with OpenCode's recorded schema for `name` (these outputs were captured from 1.18.33)."""
    return Scripted(lambda args: ToolResult(output="ran"), name, RECORDED["tools"][name])


@pytest.mark.parametrize(
    ("name", "args", "detail"),
    [
        ("bash", {"command": "echo x", "timeout": -1}, 'Expected a value greater than 0, got -1\n  at ["timeout"]'),
        ("bash", {"command": "echo x", "timeout": 1.5}, 'Expected an integer, got 1.5\n  at ["timeout"]'),
        ("read", {"filePath": 5}, 'Expected string, got 5\n  at ["filePath"]'),
        ("todowrite", {"todos": [{"content": "a"}]}, 'Missing key\n  at ["todos"][0]["status"]'),
        (
            "webfetch",
            {"url": "http://127.0.0.1/x", "format": "pdf"},
            'Expected "text" | "markdown" | "html", got "pdf"\n  at ["format"]',
        ),
    ],
)
async def test_invalid_arguments_are_reported_as_opencode_words_them(
    name: str, args: dict[str, Any], detail: str, ctx: ToolContext, truncation: Truncation
) -> None:
    tool = recorded(name)
    outcome = await run_tool(tool, args, ctx, agent_ruleset=None, truncation=truncation)
    expected = f"The {tool.name} tool was called with invalid arguments: SchemaError({detail}){SUFFIX}"
    assert outcome.is_error and not outcome.blocked
    assert outcome.error == expected and outcome.result.output == expected


async def test_missing_required_argument_names_the_key(ctx: ToolContext, truncation: Truncation) -> None:
    outcome = await run_tool(recorded("read"), {}, ctx, agent_ruleset=None, truncation=truncation)
    assert (
        outcome.error
        == f'The read tool was called with invalid arguments: SchemaError(Missing key\n  at ["filePath"]){SUFFIX}'
    )


async def test_unknown_extra_arguments_are_accepted(ctx: ToolContext, truncation: Truncation) -> None:
    tool = Scripted(lambda args: ToolResult(output=f"got {dict(args)}"))
    outcome = await run_tool(tool, {"n": 1, "extra": True}, ctx, agent_ruleset=None, truncation=truncation)
    assert not outcome.is_error and outcome.result.output == "got {'n': 1, 'extra': True}"


@pytest.mark.parametrize(
    ("raised", "blocked"),
    [
        (ToolFailure("File not found: /x"), False),
        (ValueError("boom"), False),
        (DeniedError([]), False),
        (CorrectedError("use the other file"), False),
        (RejectedError(), True),
        (NoResponderError("bash", ["rm -rf x"]), True),
    ],
)
async def test_failures_come_back_as_error_results(
    raised: BaseException, blocked: bool, ctx: ToolContext, truncation: Truncation
) -> None:
    outcome = await run_tool(Scripted(lambda args: raised), {}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.is_error
    assert outcome.error == str(raised) == outcome.result.output
    assert outcome.blocked is blocked


async def test_an_exception_without_a_message_is_named(ctx: ToolContext, truncation: Truncation) -> None:
    outcome = await run_tool(Scripted(lambda args: KeyError()), {}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.error == "KeyError"


async def test_cancellation_propagates(ctx: ToolContext, truncation: Truncation) -> None:
    started = anyio.Event()

    async def forever() -> ToolResult:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError

    reached_end = False
    async with anyio.create_task_group() as group:

        async def call() -> None:
            nonlocal reached_end
            await run_tool(Scripted(lambda args: forever), {}, ctx, agent_ruleset=None, truncation=truncation)
            reached_end = True

        group.start_soon(call)
        await started.wait()
        group.cancel_scope.cancel()
    assert not reached_end


async def test_long_output_is_truncated_when_the_tool_did_not_say_truncated(
    ctx: ToolContext, truncation: Truncation
) -> None:
    long = "\n".join(str(i) for i in range(3000))
    tool = Scripted(lambda args: ToolResult(output=long, title="t", metadata={"k": 1}))
    outcome = await run_tool(tool, {}, ctx, agent_ruleset=rules({"task": "deny"}), truncation=truncation)
    metadata = outcome.result.metadata
    assert metadata["truncated"] is True and metadata["k"] == 1
    assert "...1000 lines truncated..." in outcome.result.output
    assert "Use Grep to search the full content" in outcome.result.output
    assert await anyio.Path(metadata["outputPath"]).read_text() == long


async def test_short_output_gets_truncated_false(ctx: ToolContext, truncation: Truncation) -> None:
    outcome = await run_tool(
        Scripted(lambda a: ToolResult(output="ok")), {}, ctx, agent_ruleset=None, truncation=truncation
    )
    assert outcome.result.metadata == {"truncated": False}
    assert "outputPath" not in outcome.result.metadata


async def test_a_tool_that_truncates_itself_is_left_alone(ctx: ToolContext, truncation: Truncation) -> None:
    long = "x\n" * 5000
    tool = Scripted(lambda args: ToolResult(output=long, metadata={"truncated": False}))
    outcome = await run_tool(tool, {}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.result.output == long


ALL_TEN = ["bash", "edit", "glob", "grep", "read", "skill", "task", "todowrite", "webfetch", "write"]


async def test_a_call_to_an_unknown_tool_is_rewritten_to_invalid(ctx: ToolContext, truncation: Truncation) -> None:
    tools: dict[str, Tool] = {name: Scripted(lambda a: ToolResult(output=""), name) for name in ALL_TEN}
    done = await run_call(tools, "nosuchtool", {"a": 1}, ctx, agent_ruleset=None, truncation=truncation)
    reason = (
        "Model tried to call unavailable tool 'nosuchtool'. Available tools: bash, edit, glob, grep, invalid, "
        "read, skill, task, todowrite, webfetch, write."
    )
    assert done.tool_name == "invalid" and done.input == {"tool": "nosuchtool", "error": reason}
    assert not done.outcome.is_error
    assert done.outcome.result.output == f"The arguments provided to the tool are invalid: {reason}"
    assert done.outcome.result.title == "Invalid Tool"


async def test_a_capitalised_tool_name_is_repaired(ctx: ToolContext, truncation: Truncation) -> None:
    tools: dict[str, Tool] = {"read": Scripted(lambda a: ToolResult(output="read it"), "read")}
    done = await run_call(tools, "Read", {}, ctx, agent_ruleset=None, truncation=truncation)
    assert done.tool_name == "read" and done.outcome.result.output == "read it"


async def test_arguments_that_are_not_json_go_to_invalid(ctx: ToolContext, truncation: Truncation) -> None:
    tools: dict[str, Tool] = {"read": Scripted(lambda a: ToolResult(output="never"), "read")}
    done = await run_call(
        tools, "read", None, ctx, parse_error="Unexpected end of JSON input", agent_ruleset=None, truncation=truncation
    )
    assert done.tool_name == "invalid"
    assert done.outcome.result.output == (
        "The arguments provided to the tool are invalid: Invalid input for tool read: Unexpected end of JSON input"
    )
