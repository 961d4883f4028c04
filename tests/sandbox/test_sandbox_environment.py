"""What a shell command can learn of Strata's environment: no variable that is or looks like a secret (by
pattern, Strata's key variables, every `{env:}` the config names), unless `sandbox.env_allow` keeps it; and
inside the sandbox no other process's environment at all (`/proc/$PPID/environ`, `ps eww`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sandbox_kit import Site, bash_tool, needs_bwrap, run_bash

from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxMode
from strata_core.config.service import load_config
from strata_core.project import ProjectInfo
from strata_core.sandbox import looks_secret, scrubbed_environment

pytestmark = pytest.mark.anyio

SECRETS = {
    "GITHUB_TOKEN": "ghp-SECRET-1",
    "AWS_SECRET_ACCESS_KEY": "aws-SECRET-2",
    "MY_HDR_TOKEN": "hdr-SECRET-3",
    "DB_PASSWORD": "db-SECRET-4",
    "GCP_CREDENTIALS": "gcp-SECRET-5",
    "ANTHROPIC_API_KEY": "sk-SECRET-6",
}


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PLAIN_SETTING", "visible")


def test_names_that_say_secret_are_secret_and_others_are_not() -> None:
    assert all(looks_secret(name) for name in SECRETS)
    assert looks_secret("npm_config__auth_token") and looks_secret("Private_Key_File")
    assert not any(looks_secret(name) for name in ("PATH", "HOME", "LANG", "TERM", "EDITOR", "PWD"))


def test_the_allowlist_brings_back_a_name_or_a_pattern() -> None:
    base = {"GITHUB_TOKEN": "a", "NPM_TOKEN": "b", "KEEP_ME": "c", "PATH": "/bin"}
    kept = scrubbed_environment(base, hidden={"KEEP_ME"}, allow=["NPM_*", "keep_me"])
    assert kept == {"NPM_TOKEN": "b", "KEEP_ME": "c", "PATH": "/bin"}


def test_every_variable_the_config_names_is_collected(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = {
        "provider": {"p": {"options": {"headers": {"X-Up": "{env:UPSTREAM_HEADER_VALUE}"}, "apiKey": "{env:P_K}"}}},
        "mcp": {"m": {"type": "local", "command": ["x"], "environment": {"T": "{env:MCP_SERVER_SECRET}"}}},
    }
    (project / "opencode.json").write_text(json.dumps(config))
    paths = StrataPaths.from_env({"HOME": str(tmp_path / "home")})
    info = load_config(paths, ProjectInfo(project, project, None, "linux", "global"), {"HOME": str(tmp_path)})
    assert info.env_names == {"UPSTREAM_HEADER_VALUE", "P_K", "MCP_SERVER_SECRET"}


@pytest.mark.parametrize(
    "mode", [pytest.param("workspace-write", marks=needs_bwrap), pytest.param("danger-full-access")]
)
async def test_env_shows_no_secret(
    site: Site, secrets: None, mode: SandboxMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UPSTREAM_HEADER_VALUE", "hdr-SECRET-7")  # a name only the config says is secret
    tool = bash_tool(site, mode, config_env=frozenset({"UPSTREAM_HEADER_VALUE"}))
    result = await run_bash(tool, site, "env")
    assert "SECRET-" not in result.output
    assert "PLAIN_SETTING=visible" in result.output


async def test_env_allow_keeps_a_variable_for_commands(site: Site, secrets: None) -> None:
    tool = bash_tool(site, "danger-full-access", config={"env_allow": ("GITHUB_TOKEN",)})
    result = await run_bash(tool, site, 'echo "$GITHUB_TOKEN ${DB_PASSWORD:-hidden}"')
    assert result.output == "ghp-SECRET-1 hidden\n"


@needs_bwrap
@pytest.mark.parametrize(
    "command",
    [
        "tr '\\0' '\\n' < /proc/$PPID/environ",
        "ps eww $PPID",
        "ps eww -e",
        "cat /proc/[0-9]*/environ | tr '\\0' '\\n'",
        "cat /proc/1/environ /proc/2/environ /proc/3/environ | tr '\\0' '\\n'",
    ],
)
async def test_no_process_of_strata_is_visible_inside(site: Site, secrets: None, command: str) -> None:
    result = await run_bash(bash_tool(site), site, command)
    assert "SECRET-" not in result.output


@needs_bwrap
async def test_the_command_sees_only_its_own_processes(site: Site) -> None:
    result = await run_bash(bash_tool(site), site, "ps -e -o pid=,comm=; true")
    seen = {line.split()[1] for line in result.output.splitlines()}
    assert seen == {"bwrap", "bash", "ps"}  # bwrap's init as PID 1; Strata (here the test runner) is not there
