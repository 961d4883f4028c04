"""The skill tool (reference §13.4, as OpenCode 1.18.33 prints it): content, base directory, sampled files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from attrs import define, frozen
from tool_fakes import Asker

from strata_core.permission.rules import Ruleset, evaluate
from strata_core.tool.builtin.skill import SkillTool
from strata_core.tool.contract import ToolContext, ToolFailure
from strata_core.tool.support.search import Search

pytestmark = pytest.mark.anyio


@frozen
class Skill:
    name: str
    location: str
    content: str


@define
class Skills:
    skills: Sequence[Skill]

    async def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    async def available(self, ruleset: Ruleset, /) -> Sequence[Skill]:
        allowed = [s for s in self.skills if evaluate("skill", s.name, ruleset).action != "deny"]
        return sorted(allowed, key=lambda s: s.name)


@pytest.fixture(params=[True, False], ids=["rg", "python"])
def search(request: pytest.FixtureRequest) -> Search:
    return Search(use_rg=request.param)


@pytest.fixture
def demo(project: Path) -> Skill:
    directory = project / ".opencode" / "skill" / "demo"
    (directory / "scripts").mkdir(parents=True)
    (directory / "SKILL.md").write_text("---\nname: demo\n---\n")
    (directory / "scripts" / "run.sh").write_text("echo run\n")
    return Skill("demo", str(directory / "SKILL.md"), "\n# Demo\n\nUse scripts/run.sh.\n")


async def test_a_skill_is_loaded_in_opencodes_block(
    demo: Skill, project: Path, ctx: ToolContext, asker: Asker, search: Search
) -> None:
    tool = SkillTool(skills=Skills([demo]), search=search)
    result = await tool.execute({"name": "demo"}, ctx)
    base = project / ".opencode" / "skill" / "demo"
    assert result.output == (
        '<skill_content name="demo">\n# Skill: demo\n\n# Demo\n\nUse scripts/run.sh.\n\n'
        f"Base directory for this skill: {base}\n"
        "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n"
        "Note: file list is sampled.\n\n"
        f"<skill_files>\n<file>{base}/scripts/run.sh</file>\n</skill_files>\n</skill_content>"
    )
    assert result.title == "Loaded skill: demo"
    assert result.metadata == {"name": "demo", "dir": str(base)}
    (ask,) = asker.of("skill")
    assert ask.patterns == ["demo"] and ask.always == ["demo"]


async def test_at_most_ten_files_are_listed_hidden_ones_included(
    demo: Skill, project: Path, ctx: ToolContext, search: Search
) -> None:
    base = Path(demo.location).parent
    for i in range(15):
        (base / f".ref{i:02d}.md").write_text("x")
    result = await SkillTool(skills=Skills([demo]), search=search).execute({"name": "demo"}, ctx)
    listed = [line for line in result.output.splitlines() if line.startswith("<file>")]
    assert len(listed) == 10 and all("SKILL.md" not in line for line in listed)
    assert any("/.ref" in line for line in listed)


async def test_an_unknown_skill_names_the_available_ones(demo: Skill, ctx: ToolContext, search: Search) -> None:
    other = Skill("alpha", "<built-in>", "x")
    tool = SkillTool(skills=Skills([demo, other]), search=search)
    with pytest.raises(ToolFailure, match=r'^Skill "nope" not found\. Available skills: alpha, demo$'):
        await tool.execute({"name": "nope"}, ctx)
    with pytest.raises(ToolFailure, match=r'^Skill "nope" not found\. Available skills: none$'):
        await SkillTool(skills=Skills([]), search=search).execute({"name": "nope"}, ctx)


async def test_a_built_in_skill_has_no_files(ctx: ToolContext, search: Search) -> None:
    builtin = Skill("customize-strata", "<built-in>", "How to configure Strata.")
    result = await SkillTool(skills=Skills([builtin]), search=search).execute({"name": "customize-strata"}, ctx)
    assert "<skill_files>\n\n</skill_files>" in result.output
