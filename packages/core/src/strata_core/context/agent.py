"""The Agent service: the built-in agents, overridden and extended by config, and the default agent.

Follows OpenCode's `P/agent/agent.ts` (reference §11): every built-in's permission is
`merge(defaults, <its own rules>, user)`, config entries then override field by field and append their
permission, and finally every agent may read truncated tool output unless the user denied exactly that.
Where OpenCode allows its one `tool-output/*`, Strata allows the project's own `tool-output/<project id>/*`:
another project's saved outputs stay outside and ask (`external_directory`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeAlias

import anyio
from attrs import define, evolve, field, frozen

from strata_core.config.errors import ConfigError
from strata_core.config.merge import merge_deep
from strata_core.config.paths import StrataPaths
from strata_core.config.schema import AgentConfig, AgentMode
from strata_core.config.service import Config, ConfigInfo
from strata_core.message import ModelRef
from strata_core.permission import rules as perm
from strata_core.permission.rules import Ruleset
from strata_core.project import GLOBAL_PROJECT_ID, Project
from strata_core.texts import read_prompt

SkillDirs: TypeAlias = Callable[[], Awaitable[Sequence[Path]]]

DEFAULT_AGENT = "build"


@frozen
class AgentInfo:
    """One agent: who it is, what it may do (its ruleset), and how its model is called."""

    name: str
    mode: AgentMode
    permission: Ruleset
    description: str | None = None
    native: bool = False
    hidden: bool = False
    top_p: float | None = None
    temperature: float | None = None
    color: str | None = None
    model: ModelRef | None = None
    variant: str | None = None
    prompt: str | None = None
    """The agent's own prompt text; None means the provider prompt is used."""
    options: Mapping[str, Any] = field(factory=dict)
    steps: int | None = None


class DefaultAgentError(ConfigError):
    """`default_agent` names an agent that cannot be the default, or no agent can be."""


class Agents(Protocol):
    """The agent service: the agents available to sessions of this project."""

    async def get(self, name: str) -> AgentInfo | None: ...

    async def list(self) -> list[AgentInfo]: ...

    async def default_agent(self) -> AgentInfo: ...


def parse_model(value: str) -> ModelRef:
    """`provider/model` split at the first `/` (model ids may contain more slashes)."""
    provider_id, _, model_id = value.partition("/")
    return ModelRef(provider_id=provider_id, model_id=model_id)


# ---------------------------------------------------------------------------------------------------------
# Rulesets (pure).


def default_rules(paths: StrataPaths, skill_dirs: Sequence[Path], project_id: str = GLOBAL_PROJECT_ID) -> Ruleset:
    """The base every agent starts from (§11.2): allow all, but ask outside the project and for `.env` files."""
    whitelisted = _whitelisted_dirs(paths, skill_dirs, project_id)
    return perm.from_config(
        {
            "*": "allow",
            "doom_loop": "ask",
            "external_directory": {"*": "ask", **dict.fromkeys(whitelisted, "allow")},
            "question": "deny",
            "plan_enter": "deny",
            "plan_exit": "deny",
            "repo_clone": "deny",
            "repo_overview": "deny",
            "read": {"*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow"},
            # Strata's own: writes to config files, .strata/, .opencode/ and .git/ (tool/support/content_guard.py).
            "protected_path": "ask",
            # Strata's own: webfetch to loopback, link-local and private addresses (tool/support/network_address.py).
            "private_network": "ask",
        },
        home=paths.home,
    )


def _whitelisted_dirs(paths: StrataPaths, skill_dirs: Sequence[Path], project_id: str) -> list[str]:
    saved = paths.project_tool_output(project_id)
    return [_inside(saved), _inside(paths.tmp), *(_inside(d) for d in skill_dirs)]


def _inside(directory: Path) -> str:
    return str(directory / "*")


def _plan_rules(paths: StrataPaths, worktree: Path | None) -> dict[str, Any]:
    # Strata's plan mode writes plans under .strata/plans; .opencode/plans stays allowed for OpenCode users.
    edit: dict[str, str] = {"*": "deny", ".opencode/plans/*.md": "allow", ".strata/plans/*.md": "allow"}
    if worktree is not None:
        # Edit patterns are relative to the worktree, so the global plans dir is allowed in that form too.
        edit[os.path.relpath(paths.plans / "*.md", worktree)] = "allow"
    return {
        "question": "allow",
        "plan_exit": "allow",
        "external_directory": {_inside(paths.plans): "allow"},
        "edit": edit,
        "protected_path": {".opencode/plans/*.md": "allow", ".strata/plans/*.md": "allow"},
    }


def _explore_rules(paths: StrataPaths, skill_dirs: Sequence[Path], project_id: str) -> dict[str, Any]:
    read_only = ("grep", "glob", "list", "bash", "webfetch", "websearch", "codesearch", "read")
    whitelisted = _whitelisted_dirs(paths, skill_dirs, project_id)
    return {
        "*": "deny",
        **dict.fromkeys(read_only, "allow"),
        "external_directory": {"*": "ask", **dict.fromkeys(whitelisted, "allow")},
    }


# ---------------------------------------------------------------------------------------------------------
# Built-in agents (pure). Descriptions are read by the model in the task tool: files under
# prompts/agents/descriptions/ (build's and plan's are OpenCode's, kept as the reference records them).


def _description(name: str) -> str:
    return read_prompt(f"agents/descriptions/{name}.txt").rstrip("\n")


def builtin_agents(
    paths: StrataPaths,
    skill_dirs: Sequence[Path],
    user: Ruleset,
    worktree: Path | None = None,
    project_id: str = GLOBAL_PROJECT_ID,
) -> dict[str, AgentInfo]:
    """The native agents in OpenCode's insertion order, which `default_agent()` relies on."""
    defaults = default_rules(paths, skill_dirs, project_id)

    def rules(own: Mapping[str, Any]) -> Ruleset:
        return perm.merge(defaults, perm.from_config(own, home=paths.home), user)

    deny_all = rules({"*": "deny"})
    agents = [
        AgentInfo(
            name="build",
            description=_description("build"),
            mode="primary",
            native=True,
            permission=rules({"question": "allow", "plan_enter": "allow"}),
        ),
        AgentInfo(
            name="plan",
            description=_description("plan"),
            mode="primary",
            native=True,
            permission=rules(_plan_rules(paths, worktree)),
        ),
        AgentInfo(
            name="general",
            description=_description("general"),
            mode="subagent",
            native=True,
            permission=rules({"todowrite": "deny"}),
        ),
        AgentInfo(
            name="explore",
            description=_description("explore"),
            mode="subagent",
            native=True,
            permission=rules(_explore_rules(paths, skill_dirs, project_id)),
            prompt=read_prompt("agents/explore.txt"),
        ),
        _hidden("compaction", deny_all),
        _hidden("title", deny_all, temperature=0.5),
        _hidden("summary", deny_all),
    ]
    return {agent.name: agent for agent in agents}


def _hidden(name: str, permission: Ruleset, temperature: float | None = None) -> AgentInfo:
    """An internal agent (compaction, title, summary): no tools, its own prompt file, never listed to users."""
    return AgentInfo(
        name=name,
        mode="primary",
        native=True,
        hidden=True,
        permission=permission,
        prompt=read_prompt(f"agents/{name}.txt"),
        temperature=temperature,
    )


# ---------------------------------------------------------------------------------------------------------
# Config overrides (pure).


def build_agents(
    config: ConfigInfo,
    paths: StrataPaths,
    skill_dirs: Sequence[Path] = (),
    worktree: Path | None = None,
    project_id: str = GLOBAL_PROJECT_ID,
) -> dict[str, AgentInfo]:
    """Every agent of a project: built-ins, then config entries applied in order, then the tool-output rule
    (for `project_id`'s saved outputs)."""
    user = perm.expand_home(config.permission.rules, paths.home)
    agents = builtin_agents(paths, skill_dirs, user, worktree, project_id)
    for key, entry in config.agents.items():
        if entry.disable:
            agents.pop(key, None)
            continue
        base = agents.get(key) or AgentInfo(
            name=key, mode="all", permission=perm.merge(default_rules(paths, skill_dirs, project_id), user)
        )
        agents[key] = apply_agent_config(base, entry, paths)
    return {key: _allow_tool_output(agent, paths, project_id) for key, agent in agents.items()}


def apply_agent_config(agent: AgentInfo, entry: AgentConfig, paths: StrataPaths) -> AgentInfo:
    """Overwrite the fields the entry sets; merge its options; append its permission so it wins."""
    changes: dict[str, Any] = {name: getattr(entry, name) for name in _OVERRIDES if getattr(entry, name) is not None}
    if entry.model:
        changes["model"] = parse_model(entry.model)
    return evolve(
        agent,
        **changes,
        options=merge_deep(agent.options, entry.options),
        permission=perm.merge(agent.permission, perm.expand_home(entry.permission.rules, paths.home)),
    )


# The fields a config entry simply replaces (`AgentConfig` and `AgentInfo` name them alike).
_OVERRIDES = ("variant", "prompt", "description", "temperature", "top_p", "mode", "color", "hidden", "name", "steps")


def _allow_tool_output(agent: AgentInfo, paths: StrataPaths, project_id: str) -> AgentInfo:
    """Every agent may read its project's truncated tool output, unless the user denied exactly that pattern
    (or OpenCode's `tool-output/*`, which holds it)."""
    pattern = _inside(paths.project_tool_output(project_id))
    denied = (pattern, _inside(paths.tool_output))
    if any(
        r.permission == "external_directory" and r.action == "deny" and r.pattern in denied for r in agent.permission
    ):
        return agent
    return evolve(agent, permission=(*agent.permission, perm.Rule("external_directory", pattern, "allow")))


# ---------------------------------------------------------------------------------------------------------
# Listing and the default agent (pure).


def sorted_agents(agents: Mapping[str, AgentInfo], default_name: str | None) -> list[AgentInfo]:
    """The default agent (`default_agent`, else build) first, then by name."""
    first = default_name or DEFAULT_AGENT
    return sorted(agents.values(), key=lambda agent: (agent.name != first, agent.name))


def choose_default_agent(agents: Mapping[str, AgentInfo], default_name: str | None) -> AgentInfo:
    """The configured default agent if it can be one, else the first visible non-subagent (build, usually)."""
    if default_name:
        agent = agents.get(default_name)
        if agent is None:
            raise DefaultAgentError(f'default agent "{default_name}" not found')
        if agent.mode == "subagent":
            raise DefaultAgentError(f'default agent "{default_name}" is a subagent')
        if agent.hidden:
            raise DefaultAgentError(f'default agent "{default_name}" is hidden')
        return agent
    for agent in agents.values():
        if agent.mode != "subagent" and not agent.hidden:
            return agent
    raise DefaultAgentError("no primary visible agent found")


# ---------------------------------------------------------------------------------------------------------
# The service.


@define
class AgentService:
    """Default `Agents`: builds the agents once, on first use, from config, paths and skill directories."""

    config: Config
    paths: StrataPaths
    skill_dirs: SkillDirs | None = None
    project: Project | None = None
    """Optional: with it, plan mode may also edit the global plans dir (a worktree-relative pattern), and the
    agents may read this project's saved tool output (without it, the `global` project's)."""
    _agents: dict[str, AgentInfo] | None = field(default=None, init=False, repr=False)
    _lock: anyio.Lock | None = field(default=None, init=False, repr=False)

    async def get(self, name: str) -> AgentInfo | None:
        return (await self._load()).get(name)

    async def list(self) -> list[AgentInfo]:
        return sorted_agents(await self._load(), (await self.config.get()).default_agent)

    async def default_agent(self) -> AgentInfo:
        return choose_default_agent(await self._load(), (await self.config.get()).default_agent)

    async def _load(self) -> dict[str, AgentInfo]:
        if self._agents is not None:
            return self._agents
        if self._lock is None:
            self._lock = anyio.Lock()
        async with self._lock:
            if self._agents is None:
                config = await self.config.get()
                skill_dirs = list(await self.skill_dirs()) if self.skill_dirs else []
                info = await self.project.info() if self.project else None
                worktree, project_id = (info.worktree, info.id) if info else (None, GLOBAL_PROJECT_ID)
                self._agents = build_agents(config, self.paths, skill_dirs, worktree, project_id)
        return self._agents
