"""Config loading: sources, merge order, JSONC, substitution, markdown agents and the errors users see."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import AgentConfig, CompactionConfig, SkillsConfig
from strata_core.config.service import ConfigError, ConfigInfo, ConfigService
from strata_core.logging import capture_events
from strata_core.permission.rules import Action, Rule
from strata_core.project import ProjectService


class Setup:
    """A home, a git repository and the env that points Strata at them."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.repo = tmp_path / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.env: dict[str, str] = {"HOME": str(self.home)}

    @property
    def opencode_global(self) -> Path:
        return self.home / ".config" / "opencode"

    @property
    def strata_global(self) -> Path:
        return self.home / ".config" / "strata"

    def service(self, directory: Path | None = None) -> ConfigService:
        paths = StrataPaths.from_env(self.env)
        return ConfigService(paths, ProjectService(directory or self.repo), self.env)

    async def load(self, directory: Path | None = None) -> ConfigInfo:
        return await self.service(directory).get()


def write(path: Path, content: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def rules(**actions: Action) -> tuple[Rule, ...]:
    """`permission: {key: action}` as the rules it means, in key order."""
    return tuple(Rule(key, "*", action) for key, action in actions.items())


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


# --- sources and merge order -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_no_config_anywhere_gives_empty_config(setup: Setup) -> None:
    info = await setup.load()
    assert info.data == {}
    assert info.sources == ()
    assert info.model is None and info.instructions == () and info.agents == {}


@pytest.mark.anyio
async def test_jsonc_beats_json_in_one_directory(setup: Setup) -> None:
    write(setup.repo / "opencode.json", {"model": "a/json"})
    write(setup.repo / "opencode.jsonc", '{\n  // chosen\n  "model": "a/jsonc",\n}')
    info = await setup.load()
    assert info.model == "a/jsonc"
    assert info.sources == (setup.repo / "opencode.json", setup.repo / "opencode.jsonc")


@pytest.mark.anyio
async def test_strata_files_beat_opencode_files_in_one_directory(setup: Setup) -> None:
    write(setup.repo / "opencode.jsonc", {"model": "a/opencode"})
    write(setup.repo / "strata.json", {"model": "a/strata"})
    assert (await setup.load()).model == "a/strata"


@pytest.mark.anyio
async def test_global_strata_dir_beats_global_opencode_dir(setup: Setup) -> None:
    write(setup.opencode_global / "opencode.json", {"model": "a/opencode", "small_model": "a/small"})
    write(setup.strata_global / "config.json", {"model": "a/strata"})
    info = await setup.load()
    assert info.model == "a/strata"
    assert info.small_model == "a/small"


@pytest.mark.anyio
async def test_merge_order_is_global_then_env_file_then_project_then_dot_opencode_then_content(setup: Setup) -> None:
    keys = ("global", "env_file", "project", "dot_opencode", "content")
    write(setup.strata_global / "strata.json", dict.fromkeys(keys, "global"))
    setup.env["STRATA_CONFIG"] = str(write(setup.home / "elsewhere.json", dict.fromkeys(keys[1:], "env_file")))
    write(setup.repo / "strata.json", dict.fromkeys(keys[2:], "project"))
    write(setup.repo / ".opencode" / "opencode.json", dict.fromkeys(keys[3:], "dot_opencode"))
    setup.env["STRATA_CONFIG_CONTENT"] = json.dumps({"content": "content"})
    with capture_events():
        info = await setup.load()
    assert {key: info.data[key] for key in keys} == {key: key for key in keys}


@pytest.mark.anyio
async def test_nested_objects_merge_and_later_sources_win_per_key(setup: Setup) -> None:
    write(setup.strata_global / "strata.json", {"compaction": {"auto": False, "prune": True}})
    write(setup.repo / "strata.json", {"compaction": {"prune": False}})
    assert (await setup.load()).compaction == CompactionConfig(auto=False, prune=False)


@pytest.mark.anyio
async def test_project_files_merge_from_the_worktree_root_down(setup: Setup) -> None:
    sub = setup.repo / "packages" / "app"
    write(setup.repo / "opencode.json", {"model": "a/root", "small_model": "a/root-small"})
    write(sub / "opencode.json", {"model": "a/sub"})
    info = await setup.load(sub)
    assert info.model == "a/sub"
    assert info.small_model == "a/root-small"


@pytest.mark.anyio
async def test_project_files_above_the_worktree_are_not_read(setup: Setup, tmp_path: Path) -> None:
    write(tmp_path / "opencode.json", {"model": "a/outside"})
    assert (await setup.load()).model is None


@pytest.mark.anyio
async def test_root_dot_opencode_overrides_a_deeper_one_like_opencode(setup: Setup) -> None:
    # OpenCode lists config dirs nearest first, so the root's .opencode merges last and wins (kept on purpose).
    sub = setup.repo / "sub"
    write(setup.repo / ".opencode" / "opencode.json", {"model": "a/root"})
    write(sub / ".opencode" / "opencode.json", {"model": "a/sub", "small_model": "a/sub-small"})
    info = await setup.load(sub)
    assert info.model == "a/root"
    assert info.small_model == "a/sub-small"


@pytest.mark.anyio
async def test_config_dirs_follow_opencode_order(setup: Setup) -> None:
    sub = setup.repo / "sub"
    for directory in (sub / ".opencode", sub / ".strata", setup.repo / ".opencode", setup.home / ".strata"):
        directory.mkdir(parents=True)
    setup.env["OPENCODE_CONFIG_DIR"] = str(setup.home / "custom")
    info = await setup.load(sub)
    assert info.config_dirs == (
        setup.opencode_global,
        setup.strata_global,
        sub / ".opencode",
        sub / ".strata",
        setup.repo / ".opencode",
        setup.home / ".strata",
        setup.home / "custom",
    )


@pytest.mark.anyio
async def test_opencode_config_dir_json_is_merged(setup: Setup) -> None:
    custom = setup.home / "custom"
    write(custom / "opencode.json", {"model": "a/custom"})
    setup.env["OPENCODE_CONFIG_DIR"] = str(custom)
    assert (await setup.load()).model == "a/custom"


@pytest.mark.anyio
async def test_strata_content_beats_opencode_content(setup: Setup) -> None:
    setup.env["OPENCODE_CONFIG_CONTENT"] = '{"model": "a/opencode", "small_model": "a/small"}'
    setup.env["STRATA_CONFIG_CONTENT"] = '{"model": "a/strata"}'
    info = await setup.load()
    assert (info.model, info.small_model) == ("a/strata", "a/small")


@pytest.mark.anyio
async def test_disable_project_config_skips_project_files_and_dirs(setup: Setup) -> None:
    write(setup.strata_global / "strata.json", {"model": "a/global"})
    write(setup.repo / "opencode.json", {"model": "a/project"})
    write(setup.repo / ".opencode" / "opencode.json", {"small_model": "a/dot"})
    setup.env["OPENCODE_DISABLE_PROJECT_CONFIG"] = "true"
    info = await setup.load()
    assert (info.model, info.small_model) == ("a/global", None)
    assert setup.repo / ".opencode" not in info.config_dirs


@pytest.mark.anyio
async def test_missing_file_named_by_strata_config_is_an_error(setup: Setup) -> None:
    setup.env["STRATA_CONFIG"] = str(setup.home / "nope.json")
    with pytest.raises(ConfigError, match=r"nope\.json: the config file named by \$STRATA_CONFIG does not exist"):
        await setup.load()


@pytest.mark.anyio
async def test_config_is_loaded_once(setup: Setup) -> None:
    path = write(setup.repo / "opencode.json", {"model": "a/first"})
    service = setup.service()
    assert (await service.get()).model == "a/first"
    write(path, {"model": "a/second"})
    assert (await service.get()).model == "a/first"


@pytest.mark.anyio
async def test_user_files_are_never_rewritten(setup: Setup) -> None:
    text = '{"model": "a/b"}'
    path = write(setup.repo / "opencode.json", text)
    await setup.load()
    assert path.read_text() == text


# --- arrays and instructions -----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_instructions_are_concatenated_and_deduplicated(setup: Setup) -> None:
    write(setup.strata_global / "strata.json", {"instructions": ["a.md", "b.md"]})
    write(setup.repo / "opencode.json", {"instructions": ["b.md", "c.md"]})
    setup.env["STRATA_CONFIG_CONTENT"] = '{"instructions": ["a.md", "d.md"]}'
    assert (await setup.load()).instructions == ("a.md", "b.md", "c.md", "d.md")


@pytest.mark.anyio
async def test_other_arrays_are_replaced(setup: Setup) -> None:
    write(setup.strata_global / "strata.json", {"skills": {"paths": ["one", "two"]}})
    write(setup.repo / "opencode.json", {"skills": {"paths": ["three"], "urls": ["https://x"]}})
    info = await setup.load()
    assert info.skills == SkillsConfig(paths=("three",), urls=("https://x",))


# --- JSONC, substitution and errors ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_jsonc_comments_and_trailing_commas_are_accepted(setup: Setup) -> None:
    write(setup.repo / "opencode.jsonc", '/* block */ {\n "instructions": ["a.md",], // why\n}\n')
    assert (await setup.load()).instructions == ("a.md",)


@pytest.mark.anyio
async def test_empty_config_file_configures_nothing(setup: Setup) -> None:
    write(setup.repo / "opencode.json", "\n")
    assert (await setup.load()).data == {}


@pytest.mark.anyio
async def test_broken_json_names_file_line_and_column(setup: Setup) -> None:
    path = write(setup.repo / "opencode.json", '{\n  "model": "a/b",\n  "small_model": ,\n}')
    with pytest.raises(ConfigError) as caught:
        await setup.load()
    assert str(caught.value).startswith(f"{path}:3:18: invalid JSON: ")
    assert (caught.value.path, caught.value.line, caught.value.column) == (path, 3, 18)


@pytest.mark.anyio
async def test_top_level_that_is_not_an_object_is_an_error(setup: Setup) -> None:
    write(setup.repo / "opencode.json", '["model"]')
    with pytest.raises(ConfigError, match="expected a JSON object at the top level"):
        await setup.load()


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"model": 3}, 'model: expected a "provider/model" string, got 3'),
        ({"instructions": "AGENTS.md"}, 'instructions: expected a list of files, globs or URLs, got "AGENTS.md"'),
        ({"permission": {"bash": "sometimes"}}, 'permission.bash: expected one of allow, ask, deny, got "sometimes"'),
        ({"agent": {"x": {"temperature": "hot"}}}, 'agent.x.temperature: expected a number, got "hot"'),
        ({"agent": {"x": {"mode": "boss"}}}, 'agent.x.mode: expected one of subagent, primary, all, got "boss"'),
        ({"agent": {"x": {"steps": 0}}}, "agent.x.steps: expected a positive whole number, got 0"),
    ],
)
async def test_wrong_types_name_the_file_and_field(setup: Setup, content: dict[str, Any], message: str) -> None:
    path = write(setup.repo / "opencode.json", content)
    with pytest.raises(ConfigError) as caught:
        await setup.load()
    assert str(caught.value).startswith(f"{path}:1:")  # the JSON is on one line; test_config_blocks pins columns
    assert message in str(caught.value)


@pytest.mark.anyio
async def test_unknown_top_level_keys_are_warned_about_not_rejected(setup: Setup) -> None:
    path = write(setup.repo / "opencode.json", {"model": "a/b", "frobnicate": True})
    with capture_events() as logs:
        info = await setup.load()
    assert info.model == "a/b"
    assert [(e["event"], e["key"], e["file"]) for e in logs] == [("config.unknown_key", "frobnicate", str(path))]


@pytest.mark.anyio
async def test_env_variables_are_substituted_and_missing_ones_are_empty(setup: Setup) -> None:
    setup.env["MY_MODEL"] = "prov/model"
    write(setup.repo / "opencode.json", '{"model": "{env:MY_MODEL}", "small_model": "x{env:NOT_SET}"}')
    info = await setup.load()
    assert (info.model, info.small_model) == ("prov/model", "x")


@pytest.mark.anyio
async def test_file_references_are_trimmed_escaped_and_relative_to_the_config_file(setup: Setup) -> None:
    write(setup.repo / "conf" / "prompt.txt", '\n  say "hi"\n  then\\leave  \n')
    write(setup.repo / ".opencode" / "opencode.json", '{"agent": {"x": {"prompt": "{file:../conf/prompt.txt}"}}}')
    assert (await setup.load()).agents["x"].prompt == 'say "hi"\n  then\\leave'


@pytest.mark.anyio
async def test_file_references_expand_home(setup: Setup) -> None:
    write(setup.home / "secret.txt", "sk-123\n")
    # Outside the project, so the user's global config allows the directory (tests/core/test_config_file_...).
    write(setup.strata_global / "strata.json", '{"permission": {"external_directory": {"~/*": "allow"}}}')
    write(setup.repo / "opencode.json", '{"provider": {"p": {"options": {"apiKey": "{file:~/secret.txt}"}}}}')
    assert (await setup.load()).provider["p"].options.api_key == "sk-123"


@pytest.mark.anyio
async def test_file_references_on_comment_lines_are_ignored(setup: Setup) -> None:
    write(setup.repo / "opencode.jsonc", '{\n  // "model": "{file:missing.txt}",\n  "model": "a/b"\n}')
    assert (await setup.load()).model == "a/b"


@pytest.mark.anyio
async def test_missing_file_reference_names_the_config_file_and_the_missing_path(setup: Setup) -> None:
    path = write(setup.repo / "opencode.jsonc", '{\n  "model": "{file:missing.txt}"\n}')
    with pytest.raises(ConfigError) as caught:
        await setup.load()
    message = str(caught.value)
    assert message.startswith(f"{path}:2: bad file reference")
    assert str(setup.repo / "missing.txt") in message


# --- agents, modes, permission ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_markdown_agents_get_nested_names_prompt_and_options(setup: Setup) -> None:
    write(
        setup.repo / ".opencode" / "agents" / "team" / "reviewer.md",
        "---\ndescription: Reviews diffs\nmode: subagent\nreasoningEffort: high\n---\n\nReview carefully.\n",
    )
    write(setup.strata_global / "agent" / "helper.md", "Just help.")
    agents = (await setup.load()).agents
    assert agents["team/reviewer"] == AgentConfig(
        name="team/reviewer",
        description="Reviews diffs",
        mode="subagent",
        prompt="Review carefully.",
        options={"reasoningEffort": "high"},
    )
    assert agents["helper"].prompt == "Just help."


@pytest.mark.anyio
async def test_markdown_agents_override_json_agents_of_earlier_sources(setup: Setup) -> None:
    write(setup.repo / "opencode.json", {"agent": {"build": {"temperature": 0.1, "description": "json"}}})
    write(setup.repo / ".opencode" / "agent" / "build.md", "---\ndescription: markdown\n---\nBody")
    build = (await setup.load()).agents["build"]
    assert (build.temperature, build.description, build.prompt) == (0.1, "markdown", "Body")


@pytest.mark.anyio
async def test_markdown_modes_become_primary_agents(setup: Setup) -> None:
    write(setup.repo / ".opencode" / "modes" / "review.md", "---\nmode: subagent\n---\nLook only.")
    write(setup.repo / "opencode.json", {"mode": {"docs": {"prompt": "Write docs."}}})
    agents = (await setup.load()).agents
    assert (agents["review"].mode, agents["review"].prompt) == ("primary", "Look only.")
    assert agents["docs"].mode == "primary"


@pytest.mark.anyio
async def test_bad_agent_frontmatter_is_a_config_error_with_file_and_line(setup: Setup) -> None:
    path = write(setup.repo / ".opencode" / "agent" / "bad.md", "---\nmode: primary\ntools: [read\n---\nBody")
    with pytest.raises(ConfigError) as caught:
        await setup.load()
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}:")
    assert caught.value.line in (3, 4)


@pytest.mark.anyio
async def test_agent_tools_become_permission_and_explicit_permission_wins(setup: Setup) -> None:
    agent = {"tools": {"write": False, "bash": False, "webfetch": True}, "permission": {"bash": "ask"}, "maxSteps": 3}
    write(setup.repo / "opencode.json", {"agent": {"x": agent}})
    x = (await setup.load()).agents["x"]
    assert x.permission.rules == rules(edit="deny", bash="ask", webfetch="allow")
    assert x.steps == 3


@pytest.mark.anyio
async def test_legacy_top_level_tools_are_the_base_of_permission(setup: Setup) -> None:
    write(setup.repo / "opencode.json", {"tools": {"patch": False, "bash": True}, "permission": {"bash": "ask"}})
    assert (await setup.load()).permission.rules == rules(edit="deny", bash="ask")


@pytest.mark.anyio
async def test_permission_string_is_kept_raw_without_legacy_tools(setup: Setup) -> None:
    write(setup.repo / "opencode.json", {"permission": "ask"})
    info = await setup.load()
    assert info.data["permission"] == "ask"
    assert info.permission.rules == (Rule("*", "*", "ask"),)


@pytest.mark.anyio
async def test_permission_env_variable_is_merged_last(setup: Setup) -> None:
    write(setup.repo / "opencode.json", {"permission": {"bash": "deny", "edit": "ask"}})
    setup.env["STRATA_PERMISSION"] = '{"bash": "allow"}'
    assert (await setup.load()).permission.rules == rules(bash="allow", edit="ask")


@pytest.mark.anyio
async def test_disable_autocompact_flag_turns_off_auto_compaction(setup: Setup) -> None:
    setup.env["STRATA_DISABLE_AUTOCOMPACT"] = "1"
    assert (await setup.load()).compaction == CompactionConfig(auto=False)
