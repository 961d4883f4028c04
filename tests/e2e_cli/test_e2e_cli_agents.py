"""`strata agent list`, `strata debug agent NAME`, `strata debug skill`, `strata debug config`."""

from __future__ import annotations

import json
from pathlib import Path

from cli_harness import Cli

REVIEWER = """---
description: Reviews diffs for bugs
mode: primary
permission:
  edit: deny
---
You review code.
"""


def _with_custom_agent(project: Path) -> None:
    agents = project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(REVIEWER)


def test_agent_list_shows_builtin_and_custom_agents_default_first(cli: Cli) -> None:
    _with_custom_agent(cli.project)
    done = cli("agent", "list", "--json")
    assert done.returncode == 0, done.stderr
    agents = json.loads(done.stdout)
    names = [a["name"] for a in agents]
    assert names[0] == "build" and agents[0]["default"] is True
    assert {"plan", "general", "explore", "reviewer"} <= set(names)
    assert "title" not in names  # hidden agents are not listed
    text = cli("agent", "list").stdout
    assert "build (default)" in text and "reviewer" in text


def test_debug_agent_shows_permission_rules_in_order(cli: Cli) -> None:
    _with_custom_agent(cli.project)
    done = cli("debug", "agent", "reviewer")
    assert done.returncode == 0, done.stderr
    agent = json.loads(done.stdout)
    assert agent["mode"] == "primary"
    assert agent["prompt"].strip() == "You review code."
    edit_rules = [rule for rule in agent["permission"] if rule["permission"] == "edit"]
    assert edit_rules[-1] == {"permission": "edit", "pattern": "*", "action": "deny"}  # the last match wins


def test_an_unknown_agent_lists_the_available_ones(cli: Cli) -> None:
    done = cli("debug", "agent", "nope")
    assert done.returncode == 1
    assert done.stderr.strip() == 'Error: Agent not found: "nope". Available agents: build, explore, general, plan'


def test_debug_skill_lists_skills_with_their_location(cli: Cli) -> None:
    skill = cli.project / ".opencode" / "skill" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: release\ndescription: Cut a release.\n---\nSteps.\n")
    done = cli("debug", "skill", "--json")
    assert done.returncode == 0, done.stderr
    by_name = {s["name"]: s for s in json.loads(done.stdout)}
    assert by_name["release"]["location"] == str(skill / "SKILL.md")
    assert by_name["release"]["description"] == "Cut a release."


def test_debug_config_merges_sources_and_redacts_keys(cli: Cli) -> None:
    (cli.project / "opencode.json").write_text(
        '{"model": "a/b", "provider": {"a": {"options": {"apiKey": "{env:A_KEY}"}, "models": {"b": {}}}}}'
    )
    (cli.project / "strata.jsonc").write_text('// strata wins\n{"model": "a/c",}')
    done = cli("debug", "config", extra_env={"A_KEY": "sk-secret"})
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["sources"] == [str(cli.project / "opencode.json"), str(cli.project / "strata.jsonc")]
    assert found["config"]["model"] == "a/c"
    assert found["config"]["provider"]["a"]["options"]["apiKey"] == "<redacted>"
    assert "sk-secret" not in done.stdout


def test_a_broken_config_names_the_file_and_position_for_every_command(cli: Cli) -> None:
    (cli.project / "opencode.json").write_text('{\n  "model": "a/b",,\n}')
    commands = (
        ["run", "hi"], ["session", "list"], ["models"], ["agent", "list"], ["debug", "config"],
        ["debug", "prompt"], ["debug", "agent", "build"], ["debug", "skill"],
    )  # fmt: skip
    for args in commands:
        done = cli(*args)
        assert done.returncode == 1
        assert done.stderr.startswith(f"Error: {cli.project / 'opencode.json'}:2:")
        assert "Traceback" not in done.stderr


def test_debug_config_hides_every_credential_by_key_and_by_value(cli: Cli) -> None:
    config = {
        "model": "a/b",
        "provider": {
            "a": {
                "options": {
                    "baseURL": "https://user:pass-word-1@models.example/v1",
                    "headers": {"x-api-key": "hdr-key-1", "Cookie": "sess=cookie-1", "X-Auth": "xauth-1"},
                    "accessKey": "access-1",
                    "credentials": {"id": "cred-id-1"},
                    "project": "{env:MY_HDR_TOKEN}",
                },
                "models": {"b": {}},
            }
        },
        "mcp": {"gh": {"type": "local", "command": ["gh-mcp"], "environment": {"GITHUB_TOKEN": "ghp-env-1"}}},
    }
    (cli.project / "opencode.json").write_text(json.dumps(config))
    done = cli("debug", "config", extra_env={"MY_HDR_TOKEN": "env-only-1"})
    assert done.returncode == 0, done.stderr
    for secret in (
        "pass-word-1",
        "hdr-key-1",
        "cookie-1",
        "xauth-1",
        "access-1",
        "cred-id-1",
        "ghp-env-1",
        "env-only-1",
    ):
        assert secret not in done.stdout, secret
    assert "models.example/v1" in done.stdout
