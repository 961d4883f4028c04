"""Skills: SKILL.md files found on disk, offered to agents in the system prompt and loaded by the skill tool.

Discovery order (OpenCode's `skill/index.ts`):
1. global `~/.claude/skills/**/SKILL.md` and `~/.agents/skills/**/SKILL.md`;
2. project `.claude/` and `.agents/` directories from the working directory up to the worktree, nearest
   first, each searched for `skills/**/SKILL.md` (1 and 2 are off with `STRATA_DISABLE_EXTERNAL_SKILLS`;
   the `.claude` ones with `STRATA_DISABLE_CLAUDE_CODE[_SKILLS]`);
3. every config directory, searched for `{skill,skills}/**/SKILL.md`;
4. config `skills.paths` (`~/` expanded, relative to the working directory), searched for `**/SKILL.md`;
5. config `skills.urls`: skills downloaded into the cache by `skill_pull`, searched for `**/SKILL.md`.

The built-in `customize-strata` skill is registered first. When two skills share a name the one discovered
LATER wins, with a warning: deterministic, unlike OpenCode, where parallel parsing makes the winner racy.
So a project skill overrides a global one, and any disk skill overrides the built-in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeAlias

import anyio
import anyio.to_thread
from attrs import define, field, frozen

from strata_core.config.flags import env_flag
from strata_core.config.paths import StrataPaths
from strata_core.config.service import Config, ConfigInfo
from strata_core.context.skill_pull import pull_skill_dirs
from strata_core.logging import get_logger
from strata_core.markdown import MarkdownFrontmatterError, parse_markdown, parse_markdown_text
from strata_core.permission.outside_content import OutsideContent
from strata_core.permission.rules import Ruleset, evaluate
from strata_core.project import Project, ProjectInfo
from strata_core.texts import read_prompt

log = get_logger(__name__)

BUILTIN_SKILL_NAME = "customize-strata"
BUILTIN_SKILL_PROMPT = "skills/customize-strata.md"
BUILTIN_LOCATION = "<built-in>"
NO_SKILLS = "No skills are currently available."
SKILL_FILE = "SKILL.md"
Folders: TypeAlias = tuple[str, ...]
EXTERNAL_FOLDERS: Folders = ("skills",)
"""`skills/**/SKILL.md` under `~/.claude`, `~/.agents` and the project's own."""
CONFIG_DIR_FOLDERS: Folders = ("skill", "skills")
"""`{skill,skills}/**/SKILL.md` under each config directory."""
ANY_DEPTH: Folders = (".",)
"""`**/SKILL.md` under a `skills.paths` entry or a pulled skill set."""


@frozen
class SkillInfo:
    name: str
    description: str | None
    """Skills without one are loadable by name but never listed to the model."""
    location: str
    """The SKILL.md path, or `<built-in>`."""
    content: str
    """The markdown body after the frontmatter."""

    @property
    def directory(self) -> Path | None:
        """The skill's folder (relative paths in its body start here); None for the built-in."""
        return None if self.location == BUILTIN_LOCATION else Path(self.location).parent


class Skills(Protocol):
    """The skill service."""

    async def all(self) -> list[SkillInfo]: ...

    async def get(self, name: str) -> SkillInfo | None: ...

    async def available(self, agent_permission: Ruleset) -> list[SkillInfo]: ...

    async def dirs(self) -> list[Path]: ...


# ---------------------------------------------------------------------------------------------------------
# Pure formatting and filtering


def sort_by_name(skills: Iterable[SkillInfo]) -> list[SkillInfo]:
    """Name order close to JavaScript's `localeCompare`: case-insensitive, lower case first on a tie."""
    return sorted(skills, key=lambda s: (s.name.casefold(), s.name.swapcase()))


def available_skills(skills: Iterable[SkillInfo], agent_permission: Ruleset) -> list[SkillInfo]:
    """Skills an agent may load, sorted by name: all but those its rules `deny` for `skill`."""
    return [s for s in sort_by_name(skills) if evaluate("skill", s.name, agent_permission).action != "deny"]


def _escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def _location(skill: SkillInfo, file_urls: bool, cwd: Path | None) -> str:
    if not file_urls:
        return _escape_xml(skill.location)
    # OpenCode 1.15's form: Node's pathToFileURL resolves a relative location (the built-in's `<built-in>`)
    # against the process cwd, hence `file:///cwd/%3Cbuilt-in%3E`.
    return ((cwd or Path.cwd()) / skill.location).as_uri()


def format_skills_xml(skills: Iterable[SkillInfo], *, file_urls: bool = False, cwd: Path | None = None) -> str:
    """The verbose list for the system prompt: an `<available_skills>` block of the described skills.

    By default the location is the HTML-escaped path (`&lt;built-in&gt;` for the built-in), which is what
    OpenCode 1.18 sends; `file_urls=True` gives 1.15's `file://` URLs.
    """
    described = sort_by_name(s for s in skills if s.description is not None)
    if not described:
        return NO_SKILLS
    lines = ["<available_skills>"]
    for skill in described:
        lines += [
            "  <skill>",
            f"    <name>{skill.name}</name>",
            f"    <description>{skill.description}</description>",
            f"    <location>{_location(skill, file_urls, cwd)}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def format_skills_markdown(skills: Iterable[SkillInfo]) -> str:
    """The short list for the skill tool's description: `- **name**: description` lines."""
    described = sort_by_name(s for s in skills if s.description is not None)
    if not described:
        return NO_SKILLS
    return "\n".join(["## Available Skills", *(f"- **{s.name}**: {s.description}" for s in described)])


# ---------------------------------------------------------------------------------------------------------
# Discovery and parsing (blocking; the service runs these in a worker thread)


def _skill_files(root: Path, folders: Folders, *, dot: bool) -> list[Path]:
    """The SKILL.md files under `root`'s `folders`, symlinks followed as OpenCode's glob follows them, but no
    loop walked round and no linked-in tree walked past `markdown_files`' limits; into hidden folders if `dot`."""
    if not root.is_dir():
        return []
    from strata_core.config.markdown_files import files_named  # only when there is a folder to look in

    found = files_named(root, folders, lambda name: name == SKILL_FILE, nested=True, hidden=dot)
    return [root / path for path in found if (root / path).is_file()]


def _external_dir_names(env: Mapping[str, str]) -> list[str]:
    if env_flag(env, "DISABLE_EXTERNAL_SKILLS"):
        return []
    claude_disabled = env_flag(env, "DISABLE_CLAUDE_CODE") or env_flag(env, "DISABLE_CLAUDE_CODE_SKILLS")
    return [".agents"] if claude_disabled else [".claude", ".agents"]


def _project_external_dirs(project: ProjectInfo, names: Sequence[str]) -> list[Path]:
    """`.claude`/`.agents` directories from the working directory up to the worktree, nearest first."""
    found: list[Path] = []
    current = project.directory
    while True:
        found += [current / name for name in names if (current / name).is_dir()]
        if current == project.worktree or current.parent == current:
            return found
        current = current.parent


def skill_search_plan(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    config: ConfigInfo,
    pulled: Sequence[Path] = (),
) -> list[tuple[Path, Folders, bool]]:
    """Every `(root, folders under it, hidden folders too)` to search for SKILL.md files, in discovery order;
    `pulled` are downloaded skill dirs."""
    return [(root, folders, dot) for root, folders, dot, _ in _search_plan(project, paths, env, config, pulled)]


def _search_plan(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    config: ConfigInfo,
    pulled: Sequence[Path] = (),
) -> list[tuple[Path, Folders, bool, bool]]:
    """`skill_search_plan`, each root also saying whether it is the user's own (global: no consent needed)."""
    names = _external_dir_names(env)
    plan: list[tuple[Path, Folders, bool, bool]] = [(paths.home / name, EXTERNAL_FOLDERS, True, True) for name in names]
    plan += [(root, EXTERNAL_FOLDERS, True, False) for root in _project_external_dirs(project, names)]
    globals_ = set(paths.global_config_dirs)
    plan += [(directory, CONFIG_DIR_FOLDERS, False, directory in globals_) for directory in config.config_dirs]
    for entry in config.skills.paths:
        expanded = paths.home / entry[2:] if entry.startswith("~/") else Path(entry)
        root = expanded if expanded.is_absolute() else project.directory / expanded
        if not root.is_dir():
            log.notice("skill path not found", path=str(root))
            continue
        plan.append((root, ANY_DEPTH, False, False))
    plan += [(directory, ANY_DEPTH, False, True) for directory in pulled]
    return plan


def discover_skill_files(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    config: ConfigInfo,
    pulled: Sequence[Path] = (),
) -> list[Path]:
    """Every SKILL.md in discovery order; a file reached twice keeps its first position.

    A skill found in the project, or through `skills.paths`, that resolves outside the worktree and the global
    config dirs (a SKILL.md symlinked from elsewhere, a path like `../../elsewhere`) is loaded only where the
    configured `external_directory` rules allow it (`permission/outside_content.py`).
    """
    roots = (project.worktree, project.directory, *paths.global_config_dirs)
    outside = OutsideContent.build(roots, config.data.get("permission"), paths.home)
    found = [
        p
        for root, folders, dot, trusted in _search_plan(project, paths, env, config, pulled)
        for p in _skill_files(root, folders, dot=dot)
        if trusted or outside.allows(p, "skill")
    ]
    return list(dict.fromkeys(found))


def parse_skill(path: Path) -> SkillInfo | None:
    """A skill from its SKILL.md; None (logged) when the file is unreadable or has no usable frontmatter."""
    try:
        document = parse_markdown(path)
    except MarkdownFrontmatterError as error:
        log.notice("skill skipped: broken frontmatter", path=str(path), error=str(error))
        return None
    except (OSError, UnicodeDecodeError) as error:
        log.notice("skill skipped: file unreadable", path=str(path), error=str(error))
        return None
    name, description = document.data.get("name"), document.data.get("description")
    if not isinstance(name, str) or not (description is None or isinstance(description, str)):
        # OpenCode skips these silently; a debug line helps whoever wonders where their skill went.
        log.debug("skill skipped: needs a string `name` and an optional string `description`", path=str(path))
        return None
    return SkillInfo(name=name, description=description, location=str(path), content=document.body)


def builtin_skill() -> SkillInfo:
    """The `customize-strata` skill shipped in prompts/skills/."""
    document = parse_markdown_text(read_prompt(BUILTIN_SKILL_PROMPT), Path(BUILTIN_SKILL_PROMPT))
    description = document.data.get("description")
    return SkillInfo(
        name=BUILTIN_SKILL_NAME,
        description=description if isinstance(description, str) else None,
        location=BUILTIN_LOCATION,
        content=document.body,
    )


def build_registry(builtin: SkillInfo, discovered: Iterable[SkillInfo]) -> dict[str, SkillInfo]:
    """Name -> skill, the built-in first; a later skill with the same name replaces an earlier one."""
    registry = {builtin.name: builtin}
    for skill in discovered:
        existing = registry.get(skill.name)
        if existing is not None:
            log.notice(
                "duplicate skill name, the later one wins",
                name=skill.name,
                replaced=existing.location,
                winner=skill.location,
            )
        registry[skill.name] = skill
    return registry


def load_skills(
    project: ProjectInfo,
    paths: StrataPaths,
    env: Mapping[str, str],
    config: ConfigInfo,
    pulled: Sequence[Path] = (),
) -> dict[str, SkillInfo]:
    """Discover, parse and register every skill (blocking); `pulled` are the downloaded skill dirs."""
    parsed = (parse_skill(path) for path in discover_skill_files(project, paths, env, config, pulled))
    return build_registry(builtin_skill(), (skill for skill in parsed if skill is not None))


# ---------------------------------------------------------------------------------------------------------
# The service


@define
class SkillService:
    """Default `Skills`: discovers once, on first use, and keeps the result for the session's lifetime."""

    config: Config
    project: Project
    paths: StrataPaths
    env: Mapping[str, str]
    _registry: dict[str, SkillInfo] | None = field(default=None, init=False, repr=False)
    _lock: anyio.Lock = field(factory=lambda: anyio.Lock(fast_acquire=True), init=False, repr=False)

    async def _skills(self) -> dict[str, SkillInfo]:
        async with self._lock:
            if self._registry is None:
                project, config = await self.project.info(), await self.config.get()
                pulled = await pull_skill_dirs(config.skills.urls, self.remote_cache) if config.skills.urls else []
                self._registry = await anyio.to_thread.run_sync(
                    load_skills, project, self.paths, self.env, config, pulled
                )
            return self._registry

    @property
    def remote_cache(self) -> Path:
        """Where skills from `skills.urls` are downloaded."""
        return self.paths.cache / "skills"

    async def all(self) -> list[SkillInfo]:
        """Every skill in registration order (the built-in first unless a disk skill replaced it)."""
        return list((await self._skills()).values())

    async def get(self, name: str) -> SkillInfo | None:
        return (await self._skills()).get(name)

    async def available(self, agent_permission: Ruleset) -> list[SkillInfo]:
        return available_skills((await self._skills()).values(), agent_permission)

    async def dirs(self) -> list[Path]:
        """Folders holding a loaded SKILL.md (the agent may read them without an external-directory ask)."""
        found = (skill.directory for skill in (await self._skills()).values())
        return list(dict.fromkeys(d for d in found if d is not None))


def base_directory_note(directory: Path, examples: str = "scripts/, reference/") -> list[str]:
    """The lines that say where a skill's relative paths start. OpenCode's tool output and its skill
    commands word the examples slightly differently (`reference/`, `references/`); both are kept."""
    return [
        f"Base directory for this skill: {directory}",
        f"Relative paths in this skill (e.g., {examples}) are relative to this base directory.",
    ]
