"""Every built-in tool's parameter schema is OpenCode 1.18.33's, as recorded on the wire.

Descriptions inside the schemas are Strata's own words, so they are compared with descriptions removed
(as the oracle's compare.py does); everything else (names, types, required, bounds, enum, default) must
be equal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.builtin.bash import BashTool
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.builtin.skill import SkillTool
from strata_core.tool.builtin.task import TaskTool
from strata_core.tool.builtin.todowrite import TodoWriteTool
from strata_core.tool.builtin.webfetch import WebFetchTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import Tool

RECORDED = json.loads((Path(__file__).parent / "schemas" / "opencode_tool_schemas.json").read_text())
TOOLS: dict[str, type[Any]] = {
    "apply_patch": ApplyPatchTool,
    "bash": BashTool,
    "edit": EditTool,
    "glob": GlobTool,
    "grep": GrepTool,
    "read": ReadTool,
    "skill": SkillTool,
    "task": TaskTool,
    "todowrite": TodoWriteTool,
    "webfetch": WebFetchTool,
    "write": WriteTool,
}


def without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [without_descriptions(item) for item in schema]
    return schema


def descriptions(schema: Any, path: str = "") -> dict[str, str]:
    found: dict[str, str] = {}
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                found[path] = value
            else:
                found.update(descriptions(value, f"{path}/{key}"))
    return found


def test_the_recording_holds_the_tools_opencode_sends() -> None:
    assert RECORDED["tool_order"] == sorted(set(TOOLS) - {"apply_patch"})
    assert sorted(RECORDED["gpt_model_tool_order"]) == sorted(set(TOOLS) - {"edit", "write"})
    assert set(RECORDED["tools"]) == set(TOOLS)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_parameters_equal_opencodes_apart_from_descriptions(name: str) -> None:
    tool: Tool = TOOLS[name].PARAMETERS  # the schema is a class constant: no dependencies needed to read it
    assert without_descriptions(tool) == without_descriptions(RECORDED["tools"][name])


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_parameter_is_described_in_strata_own_words(name: str) -> None:
    ours = descriptions(TOOLS[name].PARAMETERS)
    theirs = descriptions(RECORDED["tools"][name])
    assert ours.keys() == theirs.keys()
    for where, text in ours.items():
        assert text and text != theirs[where], f"{name}{where} repeats OpenCode's wording"


def test_bash_has_no_description_parameter_in_this_release() -> None:
    assert "description" not in BashTool.PARAMETERS["properties"]
    assert BashTool.PARAMETERS["required"] == ["command"]
