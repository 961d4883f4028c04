"""The StructuredOutput tool (reference §1.4): the user's schema as parameters, the answer captured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from tool_fakes import rules

from strata_core.llm import ModelInfo
from strata_core.tool.builtin.structured_output import StructuredOutputTool
from strata_core.tool.contract import ToolContext, ToolTarget
from strata_core.tool.runner import run_tool
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"answer": {"type": "string"}, "score": {"type": "number"}},
    "required": ["answer"],
}


def test_parameters_are_the_user_schema_without_its_dialect_key() -> None:
    tool = StructuredOutputTool(SCHEMA)
    assert tool.name == "StructuredOutput"
    assert tool.parameters() == {k: v for k, v in SCHEMA.items() if k != "$schema"}


async def test_valid_output_is_captured_and_acknowledged(ctx: ToolContext, truncation: Truncation) -> None:
    seen: list[Mapping[str, Any]] = []
    tool = StructuredOutputTool(SCHEMA, on_capture=seen.append)
    outcome = await run_tool(tool, {"answer": "42", "score": 1}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.result.output == "Structured output captured successfully."
    assert outcome.result.title == "Structured Output"
    assert outcome.result.metadata["valid"] is True
    assert seen == [{"answer": "42", "score": 1}] and tool.captured == {"answer": "42", "score": 1}


async def test_output_that_breaks_the_schema_is_an_error_the_model_can_fix(
    ctx: ToolContext, truncation: Truncation
) -> None:
    tool = StructuredOutputTool(SCHEMA)
    outcome = await run_tool(tool, {"score": "high"}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.is_error and tool.captured is None
    assert "StructuredOutput tool was called with invalid arguments" in (outcome.error or "")


async def test_description_comes_from_the_prompt_files() -> None:
    text = await StructuredOutputTool(SCHEMA).description(ToolTarget("build", rules({}), ModelInfo("m", "m")))
    assert "exactly once" in text
