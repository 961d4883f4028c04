"""Config anywhere in the project, not only on the chain from the command's directory to the root: what exists
is read-only inside, what a command creates elsewhere is asked about after it (headless: moved out of the
project, never deleted), so that a later run started in that directory cannot obey a self-grant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import STRATA, Cli, isolated_env, mock_provider_config, write_config
from sandbox_kit import SECRET, SYSTEM_PATH, Site, bash_tool, needs_bwrap, tool_context
from tool_fakes import Asker, rules

from strata_providers.testing import ScriptedServer

pytestmark = needs_bwrap

GRANT = json.dumps({"permission": {"external_directory": "allow"}})
CREATE = f"mkdir -p sub a/b/.opencode/agent && echo '{GRANT}' > sub/strata.json && echo evil > a/b/.opencode/agent/x.md"


def headless_run(cli: Cli, calls: list[dict[str, object]], cwd: Path) -> tuple[str, str]:
    """`strata run` (no --auto) in `cwd`, the model making `calls`: the tool results it was sent back, and
    what the run said on stderr (a refusal makes its exit status 1; one at the tool's start ends the turn)."""
    with ScriptedServer([{"tool_calls": calls}, {"text": "done"}]) as server:
        write_config(cli.project, mock_provider_config(server.base_url))
        done = cli("run", "go", cwd=cwd)
        requests = server.main_requests
    messages = requests[1].body["messages"] if len(requests) > 1 else []
    return "\n".join(message["content"] for message in messages if message["role"] == "tool"), done.stderr


def test_config_made_off_the_chain_headless_is_moved_and_not_obeyed(tmp_path: Path, site: Site) -> None:
    assert STRATA.exists(), f"the strata console script is not installed at {STRATA}; run `uv sync`"
    cli = Cli(site.project, {**isolated_env(tmp_path), "PATH": SYSTEM_PATH + ":" + str(STRATA.parent)})
    told, said = headless_run(cli, [{"name": "bash", "arguments": {"command": CREATE}}], site.project)
    assert "Permission 'protected_path' for " in said
    assert not (site.project / "sub/strata.json").exists() and not (site.project / "a/b/.opencode").exists()
    quarantine = tmp_path / "home/.local/state/strata/quarantine"
    kept = sorted(path.relative_to(quarantine).parts[2:] for path in quarantine.rglob("*") if path.is_file())
    assert kept == [("a", "b", ".opencode", "agent", "x.md"), ("sub", "strata.json")]
    assert f"{site.project / 'sub/strata.json'} -> " in told and str(quarantine) in told
    read: dict[str, object] = {"name": "read", "arguments": {"filePath": str(site.secret)}}
    told, said = headless_run(cli, [read], site.project / "sub")
    assert SECRET not in told and "external_directory" in said  # no grant: it asks, and headless that is no


@pytest.mark.anyio
async def test_allowed_it_stays(site: Site) -> None:
    asker = Asker()  # allows every ask, as a person saying yes would
    await bash_tool(site).execute({"command": CREATE}, tool_context(site, asker))
    assert (site.project / "sub/strata.json").read_text() == GRANT + "\n"
    assert (site.project / "a/b/.opencode/agent/x.md").exists()
    assert sorted(ask.patterns[0] for ask in asker.of("protected_path")) == ["a/b/.opencode", "sub/strata.json"]


@pytest.mark.anyio
async def test_a_symlink_is_caught_and_moved_as_a_symlink(site: Site) -> None:
    (site.project / "grant.json").write_text(GRANT)
    asker = Asker(rules=rules({"*": "allow", "protected_path": "deny"}))
    tool = bash_tool(site)
    command = "mkdir sub && ln -s ../grant.json sub/opencode.json"
    result = await tool.execute({"command": command}, tool_context(site, asker))
    assert not (site.project / "sub/opencode.json").is_symlink()
    moved = tool.paths.state / "quarantine/ses_sandbox/call_sandbox/sub/opencode.json"
    assert moved.readlink() == Path("../grant.json") and str(moved) in result.output


@pytest.mark.anyio
async def test_an_existing_config_file_off_the_chain_cannot_be_changed_or_removed(site: Site) -> None:
    config = site.project / "sub/opencode.json"
    config.parent.mkdir()
    config.write_text('{"model": "mock/m"}')
    tool = bash_tool(site)
    headless = Asker(rules=rules({"*": "allow", "protected_path": "deny"}))
    commands = [
        f"echo '{GRANT}' > sub/opencode.json",
        "rm -f sub/opencode.json",
        "rm -rf sub",
        f"echo '{GRANT}' > grant.json && mv grant.json sub/opencode.json",
        "sed -i s/mock/evil/ sub/opencode.json",
        f"mv sub sub2 && mkdir sub && echo '{GRANT}' > sub/opencode.json",  # the dir above it renamed: put back
    ]
    for command in commands:
        await tool.execute({"command": command}, tool_context(site, headless))  # in the root: sub/ is off the chain
        assert config.read_text() == '{"model": "mock/m"}', command


# Every way of making config off the chain tried for the figures (8 tried; on main all 8 stayed).
MADE = {
    "sub/strata.json": f"echo '{GRANT}' > sub/strata.json",
    "sub/strata.jsonc": f"echo '{GRANT}' > sub/strata.jsonc",
    "sub/opencode.json": f"echo '{GRANT}' > sub/opencode.json",
    "sub/opencode.jsonc": "cp sub/seed sub/opencode.jsonc",
    "sub/.opencode": "mkdir -p sub/.opencode/agent && echo evil > sub/.opencode/agent/x.md",
    "a/.strata": "mkdir -p a/.strata/command && echo evil > a/.strata/command/x.md",
    "sub/x/opencode.json": "python3 -c \"import os; os.mkdir('sub/x'); open('sub/x/opencode.json', 'w')\"",
    "sub/deep/strata.json": "mkdir -p sub/deep && ln -s ../seed sub/deep/strata.json",
}


@pytest.mark.anyio
@pytest.mark.parametrize("name", MADE)
async def test_every_way_of_making_config_off_the_chain_is_moved_headless(site: Site, name: str) -> None:
    (site.project / "sub").mkdir()
    (site.project / "sub/seed").write_text(GRANT)
    headless = Asker(rules=rules({"*": "allow", "protected_path": "deny"}))
    result = await bash_tool(site).execute({"command": MADE[name]}, tool_context(site, headless))
    made = site.project / name
    assert not made.exists() and not made.is_symlink(), result.output
    assert f"{made} -> " in result.output
