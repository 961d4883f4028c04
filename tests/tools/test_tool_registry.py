"""Which tools an agent and model are offered (reference §14.1), in the order OpenCode sends them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tool_fakes import NamedTool, rules

from strata_core.llm import ModelInfo
from strata_core.permission.rules import Ruleset
from strata_core.tool.builtin.structured_output import StructuredOutputTool
from strata_core.tool.contract import Tool, ToolTarget
from strata_core.tool.registry import ToolRegistry, prefers_patch, tool_map

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "schemas" / "opencode_tool_schemas.json").read_text())
REGISTRY_ORDER = ["invalid", "bash", "read", "glob", "grep", "edit", "write", "task", "webfetch", "todowrite", "skill"]
MOCK = ModelInfo(provider_id="mock", id="mock-model")


def registry(*extra: str) -> ToolRegistry:
    tools: list[Tool] = [NamedTool(name) for name in [*REGISTRY_ORDER, *extra]]
    return ToolRegistry(tools)


def target(ruleset: Ruleset = (), model: ModelInfo = MOCK) -> ToolTarget:
    return ToolTarget("build", ruleset or rules({"*": "allow"}), model)


async def names(reg: ToolRegistry, tgt: ToolTarget, **kwargs: object) -> list[str]:
    return [item.definition.name for item in await reg.resolve(tgt, **kwargs)]  # type: ignore[arg-type]


async def test_the_ten_tools_go_out_sorted_by_name_like_opencode() -> None:
    assert await names(registry(), target()) == RECORDED["tool_order"]


async def test_definitions_carry_the_tool_description_and_schema() -> None:
    (first, *_) = await registry().resolve(target())
    assert first.definition.description == "bash for build"
    assert first.definition.parameters == first.tool.parameters()


async def test_gpt5_style_models_get_apply_patch_instead_of_edit_and_write() -> None:
    gpt5 = ModelInfo(provider_id="mock", id="gpt-5-mock")
    assert prefers_patch(gpt5)
    assert await names(registry("apply_patch"), target(model=gpt5)) == RECORDED["gpt_model_tool_order"]


async def test_without_an_apply_patch_tool_gpt5_models_keep_edit_and_write() -> None:
    gpt5 = ModelInfo(provider_id="mock", id="gpt-5-mock")
    offered = await names(registry(), target(model=gpt5))
    assert "edit" in offered and "write" in offered


@pytest.mark.parametrize("model_id", ["gpt-4o-mock", "gpt-oss-120b", "claude-sonnet-4", "mock-model"])
async def test_other_models_keep_edit_and_never_see_apply_patch(model_id: str) -> None:
    model = ModelInfo(provider_id="mock", id=model_id)
    offered = await names(registry("apply_patch"), target(model=model))
    assert "edit" in offered and "write" in offered and "apply_patch" not in offered


async def test_a_tool_whose_last_rule_denies_everything_is_not_offered() -> None:
    ruleset = rules({"*": "allow", "edit": "deny", "webfetch": {"*": "allow", "*.internal": "deny"}})
    offered = await names(registry(), target(ruleset))
    assert "edit" not in offered and "write" not in offered  # write is governed by `edit`
    assert "webfetch" in offered  # its last rule denies one pattern, not `*`


async def test_explore_like_rules_leave_the_read_only_set() -> None:
    explore = rules(
        {"*": "deny", "grep": "allow", "glob": "allow", "list": "allow", "bash": "allow", "webfetch": "allow",
         "websearch": "allow", "read": "allow"}
    )  # fmt: skip
    assert await names(registry(), target(explore)) == ["bash", "glob", "grep", "read", "webfetch"]


async def test_tools_the_user_switched_off_are_removed() -> None:
    offered = await names(registry(), target(), user_tools={"bash": False, "read": True})
    assert "bash" not in offered and "read" in offered


async def test_structured_output_goes_through_the_same_permission_filter() -> None:
    output_tool = StructuredOutputTool({"type": "object"})
    allowed = await names(registry(), target(), extra=[output_tool])
    assert "StructuredOutput" in allowed
    denied = await names(registry(), target(rules({"*": "deny", "read": "allow"})), extra=[output_tool])
    assert denied == ["read"]  # OpenCode's quirk: a `*` deny removes StructuredOutput too


async def test_tool_map_indexes_the_offered_tools_by_name() -> None:
    resolved = await registry().resolve(target())
    assert sorted(tool_map(resolved)) == RECORDED["tool_order"]
