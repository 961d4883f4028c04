"""Agents: built-ins and their permission matrix, config overrides, markdown agents, the default agent."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigError, ConfigInfo, ConfigService
from strata_core.context.agent import AgentInfo, AgentService, DefaultAgentError, build_agents, parse_model
from strata_core.message import ModelRef
from strata_core.permission.rules import Rule, disabled, evaluate
from strata_core.project import ProjectService
from strata_core.texts import PromptFileMissingError, read_prompt


class StaticConfig:
    """A `Config` double holding one fixed `ConfigInfo`."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.info = ConfigInfo(data=data or {})

    async def get(self) -> ConfigInfo:
        return self.info


@pytest.fixture
def paths(tmp_path: Path) -> StrataPaths:
    return StrataPaths.from_env({"HOME": str(tmp_path / "home")})


def agents_for(paths: StrataPaths, data: dict[str, Any] | None = None, **kwargs: Any) -> dict[str, AgentInfo]:
    return build_agents(ConfigInfo(data=data or {}), paths, **kwargs)


def action(agent: AgentInfo, permission: str, pattern: str = "*") -> str:
    return evaluate(permission, pattern, agent.permission).action


# --- built-ins -------------------------------------------------------------------------------------------


def test_builtins_come_in_opencode_insertion_order(paths: StrataPaths) -> None:
    assert list(agents_for(paths)) == ["build", "plan", "general", "explore", "compaction", "title", "summary"]


def test_builtin_flags_and_prompts(paths: StrataPaths) -> None:
    agents = agents_for(paths)
    assert [(a.mode, a.native, a.hidden) for a in agents.values()] == [
        ("primary", True, False),
        ("primary", True, False),
        ("subagent", True, False),
        ("subagent", True, False),
        ("primary", True, True),
        ("primary", True, True),
        ("primary", True, True),
    ]
    assert agents["build"].prompt is None and agents["plan"].prompt is None and agents["general"].prompt is None
    for name in ("explore", "compaction", "title", "summary"):
        assert agents[name].prompt == read_prompt(f"agents/{name}.txt")
    assert agents["title"].temperature == 0.5
    assert all(a.temperature is None for name, a in agents.items() if name != "title")
    assert all(a.steps is None and a.model is None for a in agents.values())
    assert agents["build"].description == "The default agent. Executes tools based on configured permissions."
    assert agents["plan"].description == "Plan mode. Disallows all edit tools."


def test_builtin_descriptions_are_the_prompt_files_without_their_final_newline(paths: StrataPaths) -> None:
    agents = agents_for(paths)
    for name in ("build", "plan", "general", "explore"):
        text = read_prompt(f"agents/descriptions/{name}.txt")
        assert text.endswith("\n") and agents[name].description == text[:-1]
    explore = agents["explore"].description
    assert explore is not None and explore.startswith("Fast, read-only agent for exploring a codebase")


def test_build_may_edit_run_bash_ask_questions_and_enter_plan_mode(paths: StrataPaths) -> None:
    build = agents_for(paths)["build"]
    assert action(build, "edit", "src/app.py") == "allow"
    assert action(build, "bash", "rm -rf build") == "allow"
    assert action(build, "question") == "allow"
    assert action(build, "plan_enter") == "allow"
    assert action(build, "plan_exit") == "deny"
    assert action(build, "doom_loop") == "ask"
    assert action(build, "repo_clone") == "deny"


def test_plan_denies_edits_except_plan_files(paths: StrataPaths, tmp_path: Path) -> None:
    worktree = tmp_path / "repo"
    plan = agents_for(paths, worktree=worktree)["plan"]
    assert action(plan, "edit", "src/app.py") == "deny"
    assert action(plan, "edit", ".opencode/plans/1700-idea.md") == "allow"
    assert action(plan, "edit", ".strata/plans/1700-idea.md") == "allow"
    global_plan = os.path.relpath(paths.plans / "1700-idea.md", worktree)
    assert action(plan, "edit", global_plan) == "allow"
    assert action(plan, "external_directory", f"{paths.plans}/*") == "allow"
    assert action(plan, "plan_exit") == "allow"
    assert action(plan, "plan_enter") == "deny"
    assert disabled(["edit", "write", "read"], plan.permission) == set()


def test_general_may_not_keep_a_todo_list(paths: StrataPaths) -> None:
    general = agents_for(paths)["general"]
    assert action(general, "todowrite") == "deny"
    assert action(general, "edit", "a.py") == "allow"


def test_explore_is_read_only(paths: StrataPaths) -> None:
    explore = agents_for(paths)["explore"]
    for permission in ("edit", "todowrite", "task", "question"):
        assert action(explore, permission, "x") == "deny"
    for permission in ("grep", "glob", "list", "bash", "webfetch", "websearch", "read"):
        assert action(explore, permission, "x") == "allow"
    assert disabled(["edit", "write", "apply_patch", "todowrite", "read", "grep"], explore.permission) == {
        "edit",
        "write",
        "apply_patch",
        "todowrite",
    }


@pytest.mark.parametrize("name", ["compaction", "title", "summary"])
def test_hidden_agents_may_use_no_tools(paths: StrataPaths, name: str) -> None:
    agent = agents_for(paths)[name]
    tools = ["read", "edit", "bash", "grep", "task", "skill"]
    assert disabled(tools, agent.permission) == set(tools)


def test_reading_env_files_asks_but_examples_are_allowed(paths: StrataPaths) -> None:
    for agent in (agents_for(paths)[name] for name in ("build", "plan", "general")):
        assert action(agent, "read", "src/main.py") == "allow"
        assert action(agent, "read", ".env") == "ask"
        assert action(agent, "read", "config/.env.local") == "ask"
        assert action(agent, "read", ".env.example") == "allow"


def test_outside_the_project_asks_except_whitelisted_dirs(paths: StrataPaths, tmp_path: Path) -> None:
    skill_dir = tmp_path / "skills" / "pdf"
    for agent in agents_for(paths, skill_dirs=[skill_dir], project_id="p1").values():
        if agent.name in ("compaction", "title", "summary"):
            continue
        assert action(agent, "external_directory", "/etc/*") == "ask", agent.name
        assert action(agent, "external_directory", f"{paths.tool_output}/p1/tool_1") == "allow"
        # Another project's saved outputs are outside like any other directory.
        assert action(agent, "external_directory", f"{paths.tool_output}/p2/tool_1") == "ask", agent.name
        assert action(agent, "external_directory", f"{paths.tool_output}/tool_1") == "ask", agent.name
        assert action(agent, "external_directory", f"{paths.tmp}/*") == "allow"
        assert action(agent, "external_directory", f"{skill_dir}/*") == "allow"


def test_every_agent_may_read_its_projects_tool_output_last(paths: StrataPaths) -> None:
    for agent in agents_for(paths, project_id="p1").values():
        assert agent.permission[-1] == Rule("external_directory", f"{paths.tool_output}/p1/*", "allow")


@pytest.mark.parametrize("denied", ["tool-output/*", "tool-output/p1/*"])
def test_explicit_deny_of_tool_output_is_respected(paths: StrataPaths, denied: str) -> None:
    data = {"permission": {"external_directory": {f"{paths.data}/{denied}": "deny"}}}
    for agent in agents_for(paths, data, project_id="p1").values():
        assert action(agent, "external_directory", f"{paths.tool_output}/p1/tool_1") == "deny"


def test_user_permission_comes_last_and_wins(paths: StrataPaths) -> None:
    agents = agents_for(paths, {"permission": {"edit": "deny", "question": "deny"}})
    assert action(agents["build"], "edit", "a.py") == "deny"
    assert action(agents["plan"], "edit", ".opencode/plans/x.md") == "deny"
    assert action(agents["build"], "question") == "deny"


def test_user_permission_patterns_expand_home(paths: StrataPaths) -> None:
    build = agents_for(paths, {"permission": {"external_directory": {"~/notes/*": "allow"}}})["build"]
    assert action(build, "external_directory", f"{paths.home}/notes/*") == "allow"


# --- config overrides ------------------------------------------------------------------------------------


def test_config_overrides_fields_of_a_builtin(paths: StrataPaths) -> None:
    entry = {
        "model": "openrouter/anthropic/claude-sonnet",
        "variant": "high",
        "prompt": "Be brief.",
        "description": "Mine",
        "temperature": 0.3,
        "top_p": 0.9,
        "color": "#FF8800",
        "steps": 7,
        "options": {"reasoningEffort": "low"},
        "permission": {"bash": "ask"},
    }
    build = agents_for(paths, {"agent": {"build": entry}})["build"]
    assert build.model == ModelRef(provider_id="openrouter", model_id="anthropic/claude-sonnet")
    assert (build.variant, build.prompt, build.description) == ("high", "Be brief.", "Mine")
    assert (build.temperature, build.top_p, build.color, build.steps) == (0.3, 0.9, "#FF8800", 7)
    assert build.options == {"reasoningEffort": "low"}
    assert (build.mode, build.native) == ("primary", True)
    assert action(build, "bash", "ls") == "ask"
    assert action(build, "question") == "allow"


def test_model_without_a_slash_is_a_provider_with_an_empty_model() -> None:
    assert parse_model("sonnet") == ModelRef(provider_id="sonnet", model_id="")


def test_unknown_config_agent_is_created_with_mode_all(paths: StrataPaths) -> None:
    agents = agents_for(paths, {"permission": {"webfetch": "deny"}, "agent": {"docs": {"prompt": "Write docs."}}})
    docs = agents["docs"]
    assert list(agents)[-1] == "docs"
    assert (docs.name, docs.mode, docs.native, docs.hidden, docs.prompt) == ("docs", "all", False, False, "Write docs.")
    assert action(docs, "edit", "a.py") == "allow"
    assert action(docs, "webfetch", "https://x") == "deny"
    assert action(docs, "question") == "deny"


def test_disabled_agent_is_removed(paths: StrataPaths) -> None:
    agents = agents_for(paths, {"agent": {"explore": {"disable": True}, "nope": {"disable": True}}})
    assert "explore" not in agents and "nope" not in agents


# --- the service: get, list, default agent ---------------------------------------------------------------


@pytest.mark.anyio
async def test_get_returns_none_for_unknown_names(paths: StrataPaths) -> None:
    service = AgentService(StaticConfig(), paths)
    assert (await service.get("build")) is not None
    assert await service.get("missing") is None


@pytest.mark.anyio
async def test_list_puts_build_first_then_sorts_by_name(paths: StrataPaths) -> None:
    service = AgentService(StaticConfig({"agent": {"alpha": {}}}), paths)
    names = [a.name for a in await service.list()]
    assert names == ["build", "alpha", "compaction", "explore", "general", "plan", "summary", "title"]


@pytest.mark.anyio
async def test_list_puts_the_configured_default_agent_first(paths: StrataPaths) -> None:
    service = AgentService(StaticConfig({"default_agent": "plan"}), paths)
    assert [a.name for a in await service.list()][:2] == ["plan", "build"]


@pytest.mark.anyio
async def test_default_agent_is_build_then_plan_when_build_is_disabled(paths: StrataPaths) -> None:
    assert (await AgentService(StaticConfig(), paths).default_agent()).name == "build"
    config = StaticConfig({"agent": {"build": {"disable": True}}})
    assert (await AgentService(config, paths).default_agent()).name == "plan"


@pytest.mark.anyio
async def test_configured_default_agent_is_used(paths: StrataPaths) -> None:
    config = StaticConfig({"default_agent": "docs", "agent": {"docs": {"mode": "primary"}}})
    assert (await AgentService(config, paths).default_agent()).name == "docs"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"default_agent": "ghost"}, 'default agent "ghost" not found'),
        ({"default_agent": "explore"}, 'default agent "explore" is a subagent'),
        ({"default_agent": "title"}, 'default agent "title" is hidden'),
        ({"agent": {"build": {"disable": True}, "plan": {"hidden": True}}}, "no primary visible agent found"),
    ],
)
async def test_default_agent_errors_use_opencode_messages(
    paths: StrataPaths, data: dict[str, Any], message: str
) -> None:
    with pytest.raises(DefaultAgentError) as caught:
        await AgentService(StaticConfig(data), paths).default_agent()
    assert str(caught.value) == message
    assert isinstance(caught.value, ConfigError)


@pytest.mark.anyio
async def test_skill_dirs_are_whitelisted_outside_the_project(paths: StrataPaths, tmp_path: Path) -> None:
    async def skill_dirs() -> Sequence[Path]:
        return [tmp_path / "skills" / "pdf"]

    service = AgentService(StaticConfig(), paths, skill_dirs)
    build = await service.get("build")
    assert build is not None
    assert action(build, "external_directory", f"{tmp_path}/skills/pdf/*") == "allow"


@pytest.mark.anyio
async def test_agents_are_built_once(paths: StrataPaths) -> None:
    config = StaticConfig()
    service = AgentService(config, paths)
    first = await service.get("build")
    config.info = ConfigInfo(data={"agent": {"build": {"disable": True}}})
    assert await service.get("build") is first


# --- through the real config -----------------------------------------------------------------------------


class Project:
    """A git repository, a home, and the services built on them."""

    def __init__(self, tmp_path: Path) -> None:
        self.repo = tmp_path / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.env = {"HOME": str(tmp_path / "home")}

    def write(self, relative: str, content: str) -> Path:
        path = self.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        return path

    def agents(self) -> AgentService:
        paths = StrataPaths.from_env(self.env)
        project = ProjectService(self.repo)
        return AgentService(ConfigService(paths, project, self.env), paths, project=project)


@pytest.mark.anyio
async def test_markdown_agent_with_nested_name_and_unknown_keys_as_options(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write(
        ".opencode/agent/team/reviewer.md",
        "---\ndescription: Reviews diffs\nmode: subagent\nmodel: anthropic/claude-x\nreasoningEffort: high\n"
        "tools:\n  bash: false\n---\nReview the diff.\n",
    )
    reviewer = await project.agents().get("team/reviewer")
    assert reviewer is not None
    assert (reviewer.name, reviewer.mode, reviewer.native) == ("team/reviewer", "subagent", False)
    assert reviewer.prompt == "Review the diff."
    assert reviewer.model == ModelRef(provider_id="anthropic", model_id="claude-x")
    assert reviewer.options == {"reasoningEffort": "high"}
    assert action(reviewer, "bash", "ls") == "deny"


@pytest.mark.anyio
async def test_legacy_tools_in_config_become_permission(tmp_path: Path) -> None:
    project = Project(tmp_path)
    config = {"tools": {"webfetch": False}, "agent": {"plan": {"tools": {"bash": False}, "maxSteps": 4}}}
    project.write("opencode.json", json.dumps(config))
    service = project.agents()
    plan, build = await service.get("plan"), await service.get("build")
    assert plan is not None and build is not None
    assert action(plan, "bash", "ls") == "deny"
    assert plan.steps == 4
    assert action(build, "webfetch", "https://x") == "deny"
    assert action(build, "bash", "ls") == "allow"


@pytest.mark.anyio
async def test_plan_may_edit_global_plans_relative_to_the_worktree(tmp_path: Path) -> None:
    project = Project(tmp_path)
    service = project.agents()
    plan = await service.get("plan")
    assert plan is not None
    # repo is tmp/repo and plans live in tmp/home/.local/share/strata/plans.
    assert action(plan, "edit", "../home/.local/share/strata/plans/x.md") == "allow"
    assert action(plan, "edit", "../home/notes.md") == "deny"


@pytest.mark.anyio
async def test_bad_agent_frontmatter_fails_loudly(tmp_path: Path) -> None:
    project = Project(tmp_path)
    path = project.write(".opencode/agents/broken.md", "---\ndescription: [unclosed\n---\nBody")
    with pytest.raises(ConfigError, match=rf"^{path}:\d+: invalid YAML frontmatter"):
        await project.agents().list()


# --- prompt files ----------------------------------------------------------------------------------------


def test_missing_prompt_file_names_the_expected_path() -> None:
    with pytest.raises(
        PromptFileMissingError, match=r"agents/nope\.txt' is missing: expected .*prompts/agents/nope\.txt"
    ):
        read_prompt("agents/nope.txt")


@pytest.mark.parametrize("name", ["/etc/passwd", "../pyproject.toml"])
def test_prompt_names_must_stay_inside_prompts(name: str) -> None:
    with pytest.raises(ValueError, match="relative to prompts/"):
        read_prompt(name)
