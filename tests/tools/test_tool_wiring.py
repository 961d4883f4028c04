"""The ten built-ins as the composition root builds them, and the core services fitting the tools' protocols."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tool_fakes import NoSkills, NoSubagents, OneAgent, rules

from strata_core.context.agent import AgentService
from strata_core.context.instruction import InstructionService
from strata_core.context.skill import SkillService
from strata_core.llm import ModelInfo
from strata_core.tool.builtin.defaults import builtin_tools
from strata_core.tool.builtin.read import NearbyInstructions
from strata_core.tool.builtin.skill import SkillSource
from strata_core.tool.builtin.task import AgentCatalog
from strata_core.tool.contract import ToolTarget
from strata_core.tool.registry import ToolRegistry
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

RECORDED = json.loads((Path(__file__).parent / "schemas" / "opencode_tool_schemas.json").read_text())


# These three functions are checked by mypy (.ci/run type-checks tests/): the services other modules
# provide fit the small protocols the tools declare, so wiring needs no adapters.
def skills_fit(service: SkillService) -> SkillSource:
    return service


def agents_fit(service: AgentService) -> AgentCatalog:
    return service


def instructions_fit(service: InstructionService) -> NearbyInstructions:
    return service


async def test_the_builtins_resolve_to_opencodes_tool_set_with_strata_descriptions(tmp_path: Path) -> None:
    tools = builtin_tools(
        truncation=Truncation(tmp_path), skills=NoSkills(), agents=OneAgent(), subagents=NoSubagents()
    )
    assert [tool.name for tool in tools] == [
        "bash", "read", "glob", "grep", "edit", "write", "task", "webfetch", "todowrite", "skill", "apply_patch",
    ]  # fmt: skip
    target = ToolTarget("build", rules({"*": "allow"}), ModelInfo("mock", "mock-model"))
    resolved = await ToolRegistry(tools).resolve(target)
    assert [item.definition.name for item in resolved] == RECORDED["tool_order"]
    for item in resolved:
        theirs = RECORDED["tools"][item.definition.name]
        assert item.definition.description.strip(), item.definition.name
        assert item.definition.parameters["required"] == theirs["required"]
    task = next(item for item in resolved if item.definition.name == "task")
    assert task.definition.description.endswith(
        "Available agent types and the tools they have access to:\n- explore: Looks around."
    )


async def test_gpt5_style_models_get_apply_patch_like_opencode(tmp_path: Path) -> None:
    tools = builtin_tools(
        truncation=Truncation(tmp_path), skills=NoSkills(), agents=OneAgent(), subagents=NoSubagents()
    )
    target = ToolTarget("build", rules({"*": "allow"}), ModelInfo("mock", "gpt-5-mock"))
    resolved = await ToolRegistry(tools).resolve(target)
    assert [item.definition.name for item in resolved] == RECORDED["gpt_model_tool_order"]
