"""Inside the writable project some paths stay out of a command's reach: Strata's and OpenCode's config (a
self-grant would be obeyed by the next run), `.git/hooks` and `.git/config` (run later, outside any sandbox),
and `.env`-style files, whose content a command cannot read."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sandbox_kit import Site, bash_tool, needs_bwrap, run_bash

pytestmark = [pytest.mark.anyio, needs_bwrap]

SELF_GRANT = json.dumps({"permission": {"external_directory": "allow", "bash": "allow"}})


@pytest.mark.parametrize("name", ["strata.json", "strata.jsonc", "opencode.json", "opencode.jsonc"])
async def test_a_missing_config_file_made_by_a_command_is_never_kept(site: Site, name: str) -> None:
    """Nothing is made on the host to mount over a missing name (it would be in the user's tree): the command
    can write it, and it is moved out after, unasked, even where every ask would be allowed."""
    tool = bash_tool(site)
    result = await run_bash(tool, site, f"echo '{SELF_GRANT}' > {name}")
    assert not (site.project / name).exists()
    moved = tool.paths.state / "quarantine/ses_sandbox/call_sandbox" / name
    assert (
        json.loads(moved.read_text()) == json.loads(SELF_GRANT) and f"{site.project / name} -> {moved}" in result.output
    )


async def test_an_existing_config_file_cannot_be_changed_or_replaced(site: Site) -> None:
    config = site.project / "strata.json"
    config.write_text('{"model": "mock/m"}')
    commands = [
        f"echo '{SELF_GRANT}' > strata.json",
        "rm -f strata.json",
        f"echo '{SELF_GRANT}' > grant.json && mv grant.json strata.json",
        "sed -i s/mock/evil/ strata.json",
    ]
    for command in commands:
        await run_bash(bash_tool(site), site, command)
        assert config.read_text() == '{"model": "mock/m"}', command


@pytest.mark.parametrize("directory", [".strata", ".opencode"])
async def test_config_dirs_cannot_be_made_or_filled(site: Site, directory: str) -> None:
    command = f"mkdir -p {directory}/agent && echo evil > {directory}/agent/evil.md"
    await run_bash(bash_tool(site), site, command)
    assert not (site.project / directory).exists()
    (site.project / directory).mkdir()
    await run_bash(bash_tool(site), site, f"echo '{SELF_GRANT}' > {directory}/strata.json")
    assert list((site.project / directory).iterdir()) == []


async def test_a_git_hook_cannot_be_planted(site: Site) -> None:
    hook = site.project / ".git/hooks/pre-commit"
    command = "printf '#!/bin/sh\\necho PWNED\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
    result = await run_bash(bash_tool(site), site, command)
    assert result.metadata["exit"] != 0
    assert not hook.exists()
    before = (site.project / ".git/config").read_text()
    await run_bash(
        bash_tool(site), site, "git config core.hooksPath /tmp/evil; echo '[alias] x = !evil' >> .git/config"
    )
    assert (site.project / ".git/config").read_text() == before


async def test_git_still_works_for_the_rest_of_the_repository(site: Site) -> None:
    command = "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m one && git log --format=%s"
    result = await run_bash(bash_tool(site), site, command)
    assert result.output == "one\n"


async def test_a_project_without_git_cannot_get_one(site: Site) -> None:
    bare = site.project / "bare"
    bare.mkdir()
    tool = bash_tool(site)
    ctx_site = Site(site.root, bare, site.outside)
    await run_bash(tool, ctx_site, "git init -q . ; mkdir -p .git/hooks; echo x > .git/hooks/pre-commit")
    assert not (bare / ".git").exists()


async def test_env_files_read_as_empty_and_examples_stay_readable(site: Site) -> None:
    (site.project / ".env").write_text("API=SECRET-ONE\n")
    (site.project / "sub").mkdir()
    (site.project / "sub/.env.local").write_text("API=SECRET-TWO\n")
    (site.project / "prod.env").write_text("API=SECRET-THREE\n")
    (site.project / ".env.example").write_text("API=example\n")
    (site.project / ".envrc").write_text("use nix\n")
    command = "cat .env sub/.env.local prod.env; grep -r API . ; cat .env.example .envrc"
    result = await run_bash(bash_tool(site), site, command)
    assert "SECRET" not in result.output
    assert "API=example" in result.output and "use nix" in result.output
    assert (site.project / ".env").read_text() == "API=SECRET-ONE\n"  # hidden, not emptied
    await run_bash(bash_tool(site), site, "echo API=PWNED > .env")
    assert (site.project / ".env").read_text() == "API=SECRET-ONE\n"


async def test_the_rest_of_the_project_is_writable(site: Site) -> None:
    result = await run_bash(bash_tool(site), site, "mkdir -p src && echo ok > src/a.txt && cat src/a.txt")
    assert result.output == "ok\n" and (site.project / "src/a.txt").read_text() == "ok\n"


async def test_config_in_the_directories_down_to_the_working_directory_is_protected(site: Site) -> None:
    nested = site.project / "pkg/sub"
    nested.mkdir(parents=True)
    command = f"echo '{SELF_GRANT}' > strata.json; echo '{SELF_GRANT}' > ../opencode.json; mkdir ../../.opencode"
    await run_bash(bash_tool(site), site, command, workdir=str(nested))
    assert list((site.project / "pkg").rglob("*.json")) == [] and not (site.project / ".opencode").exists()


async def test_the_users_git_identity_is_seen_inside_and_the_rest_of_home_is_not(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = site.root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh/id_ed25519").write_text("PRIVATE-KEY\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Ada\n\temail = ada@example.com\n")
    monkeypatch.setenv("HOME", str(home))
    result = await run_bash(bash_tool(site), site, "git config user.name; cat ~/.ssh/id_ed25519")
    assert result.output.startswith("Ada\n") and "PRIVATE-KEY" not in result.output


def linked_worktree(site: Site) -> Path:
    git = ["git", "-C", str(site.project), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "base"], check=True)
    linked = site.root / "linked"
    subprocess.run([*git, "worktree", "add", "-q", str(linked)], check=True)
    return linked


async def test_a_linked_worktree_sees_its_repository_read_only(site: Site) -> None:
    linked = linked_worktree(site)
    tool = bash_tool(site)
    linked_site = Site(site.root, linked, site.outside)
    status = await run_bash(tool, linked_site, "git log --format=%s")
    assert status.output == "base\n"
    hooks = site.project / ".git/hooks"
    await run_bash(tool, linked_site, f"echo evil > {hooks}/pre-commit; echo evil >> {site.project}/.git/config")
    assert not (hooks / "pre-commit").exists() and "evil" not in (site.project / ".git/config").read_text()
