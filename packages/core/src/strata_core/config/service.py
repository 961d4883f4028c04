"""The Config service: every config source merged into one `ConfigInfo`, in OpenCode's order.

Sources, later winning (`merge_deep`; arrays replace, except `instructions`, which concatenate):

1. global files, in each of `StrataPaths.global_config_dirs` (OpenCode's dir, then Strata's):
   `config.json`, `opencode.json`, `opencode.jsonc`, `strata.json`, `strata.jsonc`;
2. the file named by `OPENCODE_CONFIG`, then by `STRATA_CONFIG`;
3. project files `opencode.json(c)` and `strata.json(c)` from the worktree root down to the directory
   (outermost first; in one directory `.json` before `.jsonc`, `opencode` before `strata`);
4. each config directory (`config_dirs`): its JSON files if it is a `.opencode`/`.strata` dir (or
   `OPENCODE_CONFIG_DIR`), then its markdown agents and modes. Project config dirs are listed nearest first,
   as OpenCode does, so a `.opencode` at the repository root overrides one in a subdirectory: a quirk kept
   deliberately so one project configures the same way under both tools;
5. inline JSON from `OPENCODE_CONFIG_CONTENT`, then `STRATA_CONFIG_CONTENT`.

`STRATA_`/`OPENCODE_DISABLE_PROJECT_CONFIG` skip steps 3 and the project's config dirs. Unlike OpenCode, Strata
never writes to a user's config file (no `$schema` insertion) and only warns about unknown top-level keys.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import anyio
import anyio.to_thread
from attrs import Factory, define, field, frozen

from strata_core.config.errors import ConfigError
from strata_core.config.files import (
    check_permission,
    merge_config,
    parse_config_text,
    parse_jsonc,
    permission_object,
    read_config_file,
    read_markdown_agents,
    read_markdown_modes,
    tools_to_permission,
    unique,
)
from strata_core.config.flags import env_flag
from strata_core.config.merge import merge_deep
from strata_core.config.paths import StrataPaths
from strata_core.config.provider_schema import ProviderConfig
from strata_core.config.schema import (
    AgentConfig,
    CompactionConfig,
    ConfigBlocks,
    ExperimentalConfig,
    McpServerConfig,
    PermissionConfig,
    SkillsConfig,
    ToolOutputConfig,
)
from strata_core.config.structure import structure_config
from strata_core.permission.outside_content import OutsideContent
from strata_core.project import Project, ProjectInfo

__all__ = ["Config", "ConfigError", "ConfigInfo", "ConfigService", "config_directories", "load_config"]

GLOBAL_FILES = ("config.json", "opencode.json", "opencode.jsonc", "strata.json", "strata.jsonc")
PROJECT_FILES = ("opencode.json", "opencode.jsonc", "strata.json", "strata.jsonc")
CONFIG_DIR_NAMES = (".opencode", ".strata")


@frozen
class ConfigInfo:
    """The merged configuration: its typed blocks, the raw JSON they came from, and where it came from."""

    data: Mapping[str, Any] = field(factory=dict)
    """The merged config JSON, after `{env:}`/`{file:}` substitution and OpenCode's post-processing."""
    sources: tuple[Path, ...] = ()
    """The JSON config files merged, in merge order."""
    config_dirs: tuple[Path, ...] = ()
    """Directories searched for agent(s)/, skill(s)/ and command(s)/, in OpenCode's order (see the module doc)."""
    blocks: ConfigBlocks = field(default=Factory(lambda self: structure_config(self.data), takes_self=True))
    """`data`, typed (structured once, when the config is loaded; from `data` when only that is given)."""
    env_names: frozenset[str] = frozenset()
    """Every variable a source names with `{env:NAME}` (provider keys, headers, MCP environments...)."""

    @property
    def instructions(self) -> tuple[str, ...]:
        """Instruction files, globs and URLs from every source, concatenated without repeats."""
        return self.blocks.instructions

    @property
    def model(self) -> str | None:
        return self.blocks.model

    @property
    def small_model(self) -> str | None:
        return self.blocks.small_model

    @property
    def default_agent(self) -> str | None:
        return self.blocks.default_agent

    @property
    def skills(self) -> SkillsConfig:
        return self.blocks.skills

    @property
    def agents(self) -> Mapping[str, AgentConfig]:
        """Agent entries from `agent`, markdown agents and legacy modes, each normalised as OpenCode does."""
        return self.blocks.agent

    @property
    def permission(self) -> PermissionConfig:
        """The `permission` rules, with legacy top-level `tools` folded in."""
        return self.blocks.permission

    @property
    def provider(self) -> Mapping[str, ProviderConfig]:
        return self.blocks.provider

    @property
    def compaction(self) -> CompactionConfig:
        return self.blocks.compaction

    @property
    def tool_output(self) -> ToolOutputConfig:
        return self.blocks.tool_output

    @property
    def experimental(self) -> ExperimentalConfig:
        return self.blocks.experimental

    @property
    def mcp(self) -> Mapping[str, McpServerConfig]:
        return self.blocks.mcp


class Config(Protocol):
    """The config service: the merged configuration of the current project."""

    async def get(self) -> ConfigInfo: ...


@define
class ConfigService:
    """Default `Config`: loads every source once, on first use, and caches the result."""

    paths: StrataPaths
    project: Project
    env: Mapping[str, str] = field(factory=lambda: os.environ)
    _cached: ConfigInfo | None = field(default=None, init=False, repr=False)
    _lock: anyio.Lock | None = field(default=None, init=False, repr=False)

    async def get(self) -> ConfigInfo:
        if self._cached is not None:
            return self._cached
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._cached is None:
                project = await self.project.info()
                self._cached = await anyio.to_thread.run_sync(load_config, self.paths, project, self.env)
        return self._cached


# ---------------------------------------------------------------------------------------------------------
# Loading (blocking; the service runs it in a worker thread).


def load_config(paths: StrataPaths, project: ProjectInfo, env: Mapping[str, str]) -> ConfigInfo:
    """Read and merge every config source for `project`."""
    data: dict[str, Any] = {}
    sources: list[Path] = []
    env_names: set[str] = set()

    def add_file(path: Path, outside: OutsideContent | None = None) -> None:
        nonlocal data
        layer = read_config_file(path, env, paths.home, outside, env_names)
        if layer is not None:
            data = merge_config(data, layer)
            sources.append(path)

    for path in _global_files(paths):
        add_file(path)
    for variable, value in _env_pairs(env, "CONFIG"):
        path = Path(value).expanduser()
        if not path.is_file():
            raise ConfigError(f"{path}: the config file named by ${variable} does not exist", path=path)
        add_file(path)
    # A project's `{file:}` may read outside it only where the user's own (global) config allows it.
    roots = (project.worktree, project.directory, *paths.global_config_dirs)
    outside = OutsideContent.build(roots, data.get("permission"), paths.home)
    if not _project_config_disabled(env):
        for path in _project_files(project):
            add_file(path, outside)
    directories = config_directories(paths, project, env)
    for directory in directories:
        if _loads_json_files(directory, env):
            for name in PROJECT_FILES:
                add_file(directory / name, None if directory in paths.global_config_dirs else outside)
        markdown = {"agent": read_markdown_agents(directory), "mode": read_markdown_modes(directory)}
        data = merge_deep(data, {key: entries for key, entries in markdown.items() if entries})
    for variable, content in _env_pairs(env, "CONFIG_CONTENT"):
        layer = parse_config_text(
            content, Path(f"${variable}"), env=env, home=paths.home, base_dir=project.directory, seen_env=env_names
        )
        data = merge_config(data, layer)
    data = _post_process(data, env)
    # Every source was checked as it was read, so an error here is one only the merge could make.
    return ConfigInfo(data, tuple(sources), directories, structure_config(data), frozenset(env_names))


def config_directories(paths: StrataPaths, project: ProjectInfo, env: Mapping[str, str]) -> tuple[Path, ...]:
    """OpenCode's config directories (`P/config/paths.ts`), with `.strata` beside every `.opencode`.

    Global dirs (always listed, even if missing), then `.opencode`/`.strata` dirs from the directory up to the
    worktree (nearest first), then `~/.opencode`/`~/.strata` if they exist, then `OPENCODE_CONFIG_DIR`.
    """
    found: list[Path] = list(paths.global_config_dirs)
    project_dirs = [] if _project_config_disabled(env) else _up(project.directory, project.worktree)
    for directory in [*project_dirs, paths.home]:
        found.extend(directory / name for name in CONFIG_DIR_NAMES if (directory / name).is_dir())
    if env.get("OPENCODE_CONFIG_DIR"):
        found.append(Path(env["OPENCODE_CONFIG_DIR"]))
    return tuple(unique(found))


def _global_files(paths: StrataPaths) -> Iterator[Path]:
    for directory in paths.global_config_dirs:
        for name in GLOBAL_FILES:
            yield directory / name


def _project_files(project: ProjectInfo) -> Iterator[Path]:
    for directory in reversed(_up(project.directory, project.worktree)):
        for name in PROJECT_FILES:
            yield directory / name


def _loads_json_files(directory: Path, env: Mapping[str, str]) -> bool:
    # Global dirs' JSON files were merged first, as global files; only project-style dirs add theirs here.
    if directory.name in CONFIG_DIR_NAMES:
        return True
    return bool(env.get("OPENCODE_CONFIG_DIR")) and directory == Path(env["OPENCODE_CONFIG_DIR"])


def _up(start: Path, stop: Path) -> list[Path]:
    """`start` and its parents up to and including `stop` (or the filesystem root), nearest first."""
    chain: list[Path] = []
    for directory in (start, *start.parents):
        chain.append(directory)
        if directory == stop:
            break
    return chain


def _env_pairs(env: Mapping[str, str], suffix: str) -> list[tuple[str, str]]:
    """The set `OPENCODE_<suffix>` and `STRATA_<suffix>` variables, OpenCode's first so Strata's wins."""
    names = (f"OPENCODE_{suffix}", f"STRATA_{suffix}")
    return [(name, env[name]) for name in names if env.get(name)]


def _project_config_disabled(env: Mapping[str, str]) -> bool:
    return env_flag(env, "DISABLE_PROJECT_CONFIG")


def _post_process(data: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """OpenCode's fix-ups after merging: modes become primary agents, env permission, legacy tools, flags."""
    for name, mode in (data.get("mode") or {}).items():
        data["agent"] = merge_deep(data.get("agent") or {}, {name: {**mode, "mode": "primary"}})
    for variable, text in _env_pairs(env, "PERMISSION"):
        override = parse_jsonc(text, Path(f"${variable}"))
        check_permission(override, Path(f"${variable}"), text)
        data["permission"] = merge_deep(permission_object(data.get("permission")), permission_object(override))
    if data.get("tools"):
        # Legacy switches are the base; an explicit `permission` overrides them.
        data["permission"] = merge_deep(tools_to_permission(data["tools"]), permission_object(data.get("permission")))
    if env_flag(env, "DISABLE_AUTOCOMPACT"):
        data["compaction"] = {**(data.get("compaction") or {}), "auto": False}
    if env_flag(env, "DISABLE_PRUNE"):
        data["compaction"] = {**(data.get("compaction") or {}), "prune": False}
    return data
