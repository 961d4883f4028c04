"""The `skill` tool: load a skill's instructions (its SKILL.md body) and show which files come with it.

The output block is an interface (reference §13.4, as OpenCode 1.18.33 prints it): `<skill_content>`, the
base directory as a plain path, and up to ten sampled files of the skill in `<skill_files>`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

import anyio
from attrs import define, field

from strata_core.context.skill import base_directory_note
from strata_core.permission.rules import Ruleset
from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.search import Search, SearchError

MAX_FILES = 10


class SkillLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def location(self) -> str | os.PathLike[str]:
        """The SKILL.md file."""
        ...

    @property
    def content(self) -> str:
        """The body after the frontmatter."""
        ...


class SkillSource(Protocol):
    """The discovered skills (wired to the Skill service)."""

    async def get(self, name: str) -> SkillLike | None: ...

    async def available(self, ruleset: Ruleset, /) -> Sequence[SkillLike]:
        """The skills an agent with these rules may load, sorted by name."""
        ...


def skill_output(name: str, content: str, directory: Path, files: Sequence[Path]) -> str:
    return "\n".join(
        [
            f'<skill_content name="{name}">',
            f"# Skill: {name}",
            "",
            content.strip(),
            "",
            *base_directory_note(directory),
            "Note: file list is sampled.",
            "",
            "<skill_files>",
            "\n".join(f"<file>{path}</file>" for path in files),
            "</skill_files>",
            "</skill_content>",
        ]
    )


@define
class SkillTool(BuiltinTool):
    NAME: ClassVar[str] = "skill"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {"name": string("Name of the skill to load, as listed under available skills.")}, ["name"]
    )

    skills: SkillSource
    search: Search = field(factory=Search)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        name = str(args["name"])
        skill = await self.skills.get(name)
        if skill is None:
            names = sorted(s.name for s in await self.skills.available(ctx.ruleset))
            raise ToolFailure(f'Skill "{name}" not found. Available skills: {", ".join(names) or "none"}')
        await ctx.ask("skill", [name], [name], {})
        directory = Path(os.fspath(skill.location)).parent
        files = await self._files(directory)
        return ToolResult(
            output=skill_output(skill.name, skill.content, directory, files),
            title=f"Loaded skill: {skill.name}",
            metadata={"name": skill.name, "dir": str(directory)},
        )

    async def _files(self, directory: Path) -> list[Path]:
        if not directory.is_absolute() or not await anyio.Path(directory).is_dir():  # a built-in skill has no directory
            return []
        try:
            found = await self.search.files(directory, pattern="!**/SKILL.md", limit=MAX_FILES)
        except SearchError:
            return []
        return [directory / relative for relative in sorted(found.files)]
