"""Typed config blocks: every block's wrong type or value is refused naming the file, the key path and what was
expected; the file named is the one that set the value; unknown keys pass through; a full config structures."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from strata_core.config.errors import ConfigError
from strata_core.config.paths import StrataPaths
from strata_core.config.provider_schema import ModelConfig, ModelLimitConfig, ProviderConfig, ProviderOptions
from strata_core.config.schema import (
    AgentConfig,
    CommandConfig,
    CompactionConfig,
    ConfigBlocks,
    ExperimentalConfig,
    McpLocalConfig,
    McpRemoteConfig,
    McpSwitch,
    PermissionConfig,
    SkillsConfig,
    ToolOutputConfig,
)
from strata_core.config.service import ConfigInfo, ConfigService
from strata_core.config.structure import structure_config
from strata_core.errors import StrataError
from strata_core.logging import EventMessage
from strata_core.permission.rules import Rule
from strata_core.project import ProjectService

pytestmark = pytest.mark.anyio


class Home:
    """A home with a global config dir and a git repository, and the env that points Strata at them."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.repo = tmp_path / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.env: dict[str, str] = {"HOME": str(self.home)}
        self.global_dir = self.home / ".config" / "strata"

    async def load(self) -> ConfigInfo:
        service = ConfigService(StrataPaths.from_env(self.env), ProjectService(self.repo), self.env)
        return await service.get()

    async def error(self) -> ConfigError:
        with pytest.raises(ConfigError) as caught:
            await self.load()
        return caught.value


def write(path: Path, content: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


# --- wrong types and values, block by block ---------------------------------------------------------------

BAD_VALUES = [
    ({"model": 3}, "model", 'a "provider/model" string, got 3'),
    ({"default_agent": ["build"]}, "default_agent", 'an agent name, got ["build"]'),
    ({"share": "sometimes"}, "share", 'one of manual, auto, disabled, got "sometimes"'),
    ({"compaction": {"reserved": "abc"}}, "compaction.reserved", 'a whole number of tokens, got "abc"'),
    ({"compaction": {"auto": "no"}}, "compaction.auto", 'true or false, got "no"'),
    ({"compaction": {"tail_turns": 1.5}}, "compaction.tail_turns", "a whole number of turns, got 1.5"),
    ({"tool_output": {"max_lines": -1}}, "tool_output.max_lines", "a positive whole number of lines, got -1"),
    ({"tool_output": {"max_bytes": "50k"}}, "tool_output.max_bytes", 'a positive whole number of bytes, got "50k"'),
    ({"agent": {"x": {"temperature": "hot"}}}, "agent.x.temperature", 'a number, got "hot"'),
    ({"agent": {"x": {"mode": "boss"}}}, "agent.x.mode", 'one of subagent, primary, all, got "boss"'),
    ({"agent": {"x": {"maxSteps": 0}}}, "agent.x.maxSteps", "a positive whole number, got 0"),
    ({"agent": {"x": {"tools": {"bash": "off"}}}}, "agent.x.tools.bash", 'true or false, got "off"'),
    ({"agent": {"x": {"permission": {"edit": "never"}}}}, "agent.x.permission.edit", "one of allow, ask, deny"),
    ({"agent": {"x": "build"}}, "agent.x", 'an object, got "build"'),
    ({"mode": {"docs": {"hidden": 1}}}, "mode.docs.hidden", "true or false, got 1"),
    ({"permission": {"bash": 42}}, "permission.bash", "one of allow, ask, deny, got 42"),
    ({"permission": {"bash": {"git *": "maybe"}}}, "permission.bash.git *", 'one of allow, ask, deny, got "maybe"'),
    ({"permission": 7}, "permission", "one of allow, ask, deny, or an object of them, got 7"),
    ({"tools": {"write": "no"}}, "tools.write", 'true or false, got "no"'),
    ({"provider": {"p": {"models": {"m": {"limit": {"context": "big"}}}}}}, "provider.p.models.m.limit.context",
     'a number of tokens, got "big"'),
    ({"provider": {"p": {"options": {"headers": {"X-Team": 7}}}}}, "provider.p.options.headers.X-Team",
     "a string, got 7"),
    ({"provider": {"p": {"env": "P_KEY"}}}, "provider.p.env", 'a list of environment variable names, got "P_KEY"'),
    ({"provider": {"p": {"options": {"timeout": -5}}}}, "provider.p.options.timeout",
     "milliseconds, or false for none, got -5"),
    ({"instructions": "AGENTS.md"}, "instructions", 'a list of files, globs or URLs, got "AGENTS.md"'),
    ({"skills": {"urls": ["https://x", 3]}}, "skills.urls", 'a list of URLs, got ["https://x", 3]'),
    ({"skills": ["paths"]}, "skills", 'an object, got ["paths"]'),
    ({"experimental": {"primary_tools": "task"}}, "experimental.primary_tools", 'a list of tool names, got "task"'),
    ({"mcp": {"x": {"type": "carrier-pigeon"}}}, "mcp.x.type", 'local or remote, got "carrier-pigeon"'),
    ({"mcp": {"x": {"type": "local"}}}, "mcp.x.command", "the command and its arguments, as a list of strings"),
    ({"mcp": {"x": {"type": "remote", "url": "http://x", "timeout": 0}}}, "mcp.x.timeout",
     "a positive whole number of milliseconds, got 0"),
    ({"mcp": {"x": {"type": "local", "command": ["srv"], "environment": {"A": 1}}}}, "mcp.x.environment.A",
     "a string, got 1"),
    ({"command": {"review": {"subtask": "yes"}}}, "command.review.subtask", 'true or false, got "yes"'),
]  # fmt: skip


@pytest.mark.parametrize(("content", "key_path", "expected"), BAD_VALUES, ids=[case[1] for case in BAD_VALUES])
async def test_a_wrong_value_names_the_file_the_key_path_and_the_expectation(
    home: Home, content: dict[str, Any], key_path: str, expected: str
) -> None:
    path = write(home.repo / "opencode.json", content)
    error = await home.error()
    assert str(error).startswith(f"{path}:{error.line}:{error.column}: {key_path}: expected {expected}")
    assert (error.path, error.key_path) == (path, key_path)
    assert error.line is not None and error.line > 1  # `write` indents: every value sits below the opening brace
    assert isinstance(error, StrataError)


async def test_the_error_gives_the_line_and_column_of_the_bad_value_in_a_jsonc_file(home: Home) -> None:
    text = '{\n  // the budget\n  compaction: {\n    "auto": true,\n    \'reserved\': "abc", /* typo */\n  },\n}\n'
    path = write(home.repo / "opencode.jsonc", text)
    error = await home.error()
    assert (error.line, error.column) == (5, 17)
    assert str(error) == f'{path}:5:17: compaction.reserved: expected a whole number of tokens, got "abc"'


async def test_the_error_names_the_global_file_when_the_global_file_set_the_bad_value(home: Home) -> None:
    bad = write(home.global_dir / "strata.json", {"compaction": {"reserved": "abc"}})
    write(home.repo / "opencode.json", {"compaction": {"auto": True}, "model": "a/b"})
    error = await home.error()
    assert error.path == bad
    assert str(error) == f'{bad}:3:17: compaction.reserved: expected a whole number of tokens, got "abc"'


async def test_the_error_names_the_project_file_when_the_project_file_set_the_bad_value(home: Home) -> None:
    write(home.global_dir / "strata.json", {"tool_output": {"max_lines": 100}})
    bad = write(home.repo / "opencode.json", {"tool_output": {"max_bytes": 0}})
    error = await home.error()
    assert error.path == bad and error.key_path == "tool_output.max_bytes"


async def test_a_markdown_agent_error_names_the_markdown_file_and_the_frontmatter_key(home: Home) -> None:
    bad = write(home.repo / ".opencode" / "agent" / "review.md", "---\ntemperature: hot\n---\nReview.")
    error = await home.error()
    assert str(error) == f'{bad}: temperature: expected a number, got "hot"'


async def test_an_env_permission_error_names_the_variable(home: Home) -> None:
    home.env["STRATA_PERMISSION"] = '{"bash": "sure"}'
    error = await home.error()
    assert str(error) == '$STRATA_PERMISSION:1:10: permission.bash: expected one of allow, ask, deny, got "sure"'


async def test_inline_config_content_errors_name_the_variable(home: Home) -> None:
    home.env["OPENCODE_CONFIG_CONTENT"] = '{"skills": {"paths": "skills"}}'
    error = await home.error()
    assert str(error).startswith("$OPENCODE_CONFIG_CONTENT:1:22: skills.paths: expected a list of paths")


def test_a_config_built_from_data_alone_says_config_where_a_file_would_be() -> None:
    with pytest.raises(ConfigError, match=r'^config: agent\.x\.top_p: expected a number, got "high"$'):
        ConfigInfo(data={"agent": {"x": {"top_p": "high"}}})


# --- unknown keys ------------------------------------------------------------------------------------------


async def test_unknown_keys_pass_through_untyped(home: Home) -> None:
    write(
        home.repo / "opencode.json",
        {
            "theme": "tokyonight",
            "frobnicate": {"level": 3},
            "layout": "stretch",
            "experimental": {"batch_tool": True, "primary_tools": ["task"]},
            "provider": {"p": {"api": "https://p", "options": {"setCacheKey": True}, "models": {"m": {"cost": 1}}}},
        },
    )
    info = await home.load()
    assert info.blocks.extra == {
        "theme": "tokyonight",
        "frobnicate": {"level": 3},
        "layout": "stretch",
    }
    assert info.experimental == ExperimentalConfig(primary_tools=("task",), extra={"batch_tool": True})
    provider = info.provider["p"]
    assert (provider.extra, provider.options.extra) == ({"api": "https://p"}, {"setCacheKey": True})
    assert provider.models["m"].extra == {"cost": 1}
    assert info.data["frobnicate"] == {"level": 3}  # the raw merged JSON keeps everything, for `debug config`


# --- a full, valid OpenCode-style config --------------------------------------------------------------------

FULL_CONFIG = """{
  "$schema": "https://opencode.ai/config.json",
  // a config as an OpenCode user writes one
  "model": "anthropic/claude-sonnet-4-5",
  "small_model": "anthropic/claude-haiku-4-5",
  "default_agent": "plan",
  "username": "ada",
  "share": "disabled",
  "instructions": ["CONTRIBUTING.md", "docs/*.md"],
  "skills": {"paths": ["~/skills"], "urls": ["https://example.com/skills"]},
  "compaction": {"auto": true, "prune": true, "reserved": 8000, "tail_turns": 3, "preserve_recent_tokens": 4000},
  "tool_output": {"max_lines": 500, "max_bytes": 20000},
  "permission": {"bash": {"*": "ask", "git status": "allow"}, "edit": "allow"},
  "agent": {
    "review": {"description": "Reviews", "mode": "subagent", "model": "openai/gpt-5", "temperature": 0.2,
               "top_p": 0.9, "maxSteps": 5, "tools": {"write": false}, "reasoningEffort": "high"}
  },
  "provider": {
    "local": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Local",
      "env": ["LOCAL_KEY"],
      "options": {"baseURL": "http://127.0.0.1:8080/v1", "apiKey": "k", "headers": {"X-Team": "a"}, "timeout": false},
      "models": {"m": {"name": "M", "tool_call": true, "limit": {"context": 32768, "output": 4096}}}
    }
  },
  "experimental": {"primary_tools": ["task"], "continue_loop_on_deny": true, "mcp_timeout": 9000},
  "mcp": {
    "files": {"type": "local", "command": ["mcp-files", "--root", "."], "environment": {"A": "1"}, "timeout": 3000},
    "docs": {"type": "remote", "url": "https://mcp.example.com", "headers": {"Auth": "t"}, "enabled": false}
  },
  "command": {"review": {"template": "Review $ARGUMENTS", "agent": "review", "subtask": true}},
}"""


async def test_a_full_opencode_config_structures_to_typed_blocks(home: Home) -> None:
    write(home.repo / "opencode.jsonc", FULL_CONFIG)
    blocks = (await home.load()).blocks
    assert (blocks.model, blocks.small_model, blocks.default_agent) == (
        "anthropic/claude-sonnet-4-5",
        "anthropic/claude-haiku-4-5",
        "plan",
    )
    assert (blocks.username, blocks.share) == ("ada", "disabled")
    assert blocks.instructions == ("CONTRIBUTING.md", "docs/*.md")
    assert blocks.skills == SkillsConfig(paths=("~/skills",), urls=("https://example.com/skills",))
    assert blocks.compaction == CompactionConfig(True, True, 8000, 3, 4000)
    assert blocks.tool_output == ToolOutputConfig(500, 20000)
    assert blocks.permission == PermissionConfig(
        (Rule("bash", "*", "ask"), Rule("bash", "git status", "allow"), Rule("edit", "*", "allow"))
    )
    assert blocks.agent["review"] == AgentConfig(
        description="Reviews",
        mode="subagent",
        model="openai/gpt-5",
        temperature=0.2,
        top_p=0.9,
        steps=5,
        max_steps=5,
        options={"reasoningEffort": "high"},
        permission=PermissionConfig((Rule("edit", "*", "deny"),)),
    )
    options = ProviderOptions(api_key="k", base_url="http://127.0.0.1:8080/v1", headers={"X-Team": "a"}, timeout=False)
    assert blocks.provider["local"] == ProviderConfig(
        name="Local",
        npm="@ai-sdk/openai-compatible",
        env=("LOCAL_KEY",),
        options=options,
        models={"m": ModelConfig(name="M", tool_call=True, limit=ModelLimitConfig(context=32768, output=4096))},
    )
    assert blocks.experimental == ExperimentalConfig(("task",), True, 9000)
    assert blocks.mcp == {
        "files": McpLocalConfig(command=("mcp-files", "--root", "."), environment={"A": "1"}, timeout=3000),
        "docs": McpRemoteConfig(url="https://mcp.example.com", headers={"Auth": "t"}, enabled=False),
    }
    assert blocks.command == {"review": CommandConfig(template="Review $ARGUMENTS", agent="review", subtask=True)}
    assert blocks.extra == {"$schema": "https://opencode.ai/config.json"}


async def test_an_mcp_switch_in_one_file_turns_off_a_server_defined_in_another(home: Home) -> None:
    write(home.global_dir / "strata.json", {"mcp": {"files": {"type": "local", "command": ["mcp-files"]}}})
    write(home.repo / "opencode.json", {"mcp": {"files": {"enabled": False}, "other": {"enabled": True}}})
    mcp = (await home.load()).mcp
    assert mcp == {"files": McpLocalConfig(command=("mcp-files",), enabled=False), "other": McpSwitch(enabled=True)}


def test_no_config_structures_to_opencode_defaults() -> None:
    blocks = structure_config({})
    assert blocks == ConfigBlocks()
    assert (blocks.compaction.auto, blocks.tool_output.max_lines, blocks.permission.rules) == (None, None, ())


def test_null_values_are_absent_values() -> None:
    blocks = structure_config({"model": None, "compaction": {"reserved": None}, "instructions": None})
    assert (blocks.model, blocks.compaction.reserved, blocks.instructions) == (None, None, ())


def test_config_blocks_are_structured_by_the_one_converter() -> None:
    from strata_core.serialization import structure

    data = {"model": "a/b", "agent": {"x": {"steps": 2}}, "mcp": {"m": {"type": "remote", "url": "http://m"}}}
    assert structure(data, ConfigBlocks) == structure_config(data)
    assert structure_config(data).agent["x"].steps == 2


async def test_an_unknown_key_warns_once_with_the_closest_known_key_and_its_position(
    home: Home, caplog: pytest.LogCaptureFixture
) -> None:
    path = home.repo / "opencode.json"
    path.write_text('{\n  "modle": "mock/m",\n  "frobnicate": 1\n}\n')
    with caplog.at_level(logging.WARNING, logger="strata_core.config.files"):
        info = await home.load()
    says = [record.msg.fields()["says"] for record in caplog.records if isinstance(record.msg, EventMessage)]
    assert says == [
        f'{path}:2:12: unknown config key "modle" (did you mean "model"?); Strata does not use it (OpenCode would '
        "refuse the file)",
        f'{path}:3:17: unknown config key "frobnicate"; Strata does not use it (OpenCode would refuse the file)',
    ]
    assert info.blocks.extra["modle"] == "mock/m"  # kept as written, as before


async def test_strict_config_refuses_an_unknown_key_where_it_is(home: Home) -> None:
    path = home.repo / "strata.json"
    path.write_text('{\n  "modle": "mock/m"\n}\n')
    home.env["STRATA_CONFIG_STRICT"] = "1"
    with pytest.raises(
        ConfigError, match=rf'^{re.escape(str(path))}:2:12: unknown config key "modle" \(did you mean "model"\?\)$'
    ):
        await home.load()
