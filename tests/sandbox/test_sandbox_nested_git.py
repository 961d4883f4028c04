"""Nested repositories are protected as the root's is: an existing one's `.git/config` and hooks are read-only
inside, and a `.git` a command creates anywhere in the project (a `git init`, a `.git` file naming another
git dir, a hooks dir a repository lacked) asks `protected_path` after the command (headless: moved out), so
that the user's own `git` there never runs what the agent planted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_kit import Site, bash_tool, needs_bwrap, tool_context
from tool_fakes import Asker, rules

from strata_core.tool.contract import ToolResult

pytestmark = [pytest.mark.anyio, needs_bwrap]


def headless() -> Asker:
    return Asker(rules=rules({"*": "allow", "protected_path": "deny"}))


async def bash(site: Site, command: str, asker: Asker | None = None) -> ToolResult:
    return await bash_tool(site).execute({"command": command}, tool_context(site, asker or headless()))


def init_repository(directory: Path) -> None:
    subprocess.run(["git", "init", "-q", str(directory)], check=True)


def users_git_status(directory: Path) -> None:
    """The user's own `git status` in `directory`, outside any sandbox."""
    subprocess.run(["git", "-C", str(directory), "status", "--short"], capture_output=True, check=False)


async def test_a_planted_repository_with_an_fsmonitor_never_runs_on_the_host(site: Site) -> None:
    pwned = site.outside / "pwn"
    result = await bash(site, f"git init -q sub && git -C sub config core.fsmonitor 'touch {pwned}'")
    assert not (site.project / "sub/.git").exists()
    assert f"{site.project / 'sub/.git'} -> " in result.output
    users_git_status(site.project / "sub")
    assert not pwned.exists()


async def test_a_planted_repository_is_asked_about_and_allowed_it_stays(site: Site) -> None:
    asker = Asker()
    await bash(site, "git init -q sub", asker)
    assert (site.project / "sub/.git").is_dir()
    assert [ask.patterns for ask in asker.of("protected_path")] == [["sub/.git"]]


async def test_a_planted_git_file_is_moved_out(site: Site) -> None:
    (site.project / "sub").mkdir()
    await bash(site, "git init -q --bare /tmp/evil && echo 'gitdir: /tmp/evil' > sub/.git")
    assert not (site.project / "sub/.git").exists()


async def test_an_existing_nested_repository_keeps_its_config_and_hooks_and_moves_with_its_dir(site: Site) -> None:
    sub = site.project / "vendor/lib"
    init_repository(sub)
    config = (sub / ".git/config").read_text()
    pwned = site.outside / "pwn"
    commands = [
        f"git -C vendor/lib config core.fsmonitor 'touch {pwned}'",
        f"echo '[core] fsmonitor = touch {pwned}' >> vendor/lib/.git/config",
        "printf '#!/bin/sh\\ntouch /tmp/x\\n' > vendor/lib/.git/hooks/post-checkout",
        "rm -rf vendor/lib/.git/hooks",
    ]
    for command in commands:
        await bash(site, command)
        assert (sub / ".git/config").read_text() == config, command
        assert not (sub / ".git/hooks/post-checkout").exists(), command
    users_git_status(sub)
    assert not pwned.exists()
    asker = headless()  # git itself still works there, and renaming the dir carries the repository along
    result = await bash(
        site, "git -C vendor/lib status --short && mv vendor v2 && git -C v2/lib status && echo ok", asker
    )
    assert result.output.endswith("ok\n") and asker.of("protected_path") == []
    assert (site.project / "v2/lib/.git/config").read_text() == config and not (site.project / "vendor").exists()


async def test_hooks_added_to_a_repository_without_them_are_moved_out(site: Site) -> None:
    sub = site.project / "sub"
    init_repository(sub)
    shutil.rmtree(sub / ".git/hooks")
    await bash(site, "mkdir sub/.git/hooks && printf '#!/bin/sh\\necho PWNED\\n' > sub/.git/hooks/pre-commit")
    assert not (sub / ".git/hooks").exists() and (sub / ".git/config").exists()


def add_submodule(site: Site) -> Path:
    """`sub/`, a submodule of the project: `sub/.git` is a file naming `.git/modules/sub`, where its config is."""
    library = site.root / "library"
    init_repository(library)
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a", "-c", "protocol.file.allow=always"]
    subprocess.run([*git, "-C", str(library), "commit", "-q", "--allow-empty", "-m", "lib"], check=True)
    subprocess.run([*git, "-C", str(site.project), "submodule", "add", "-q", str(library), "sub"], check=True)
    return site.project / ".git/modules/sub"


async def test_a_submodules_git_dir_inside_the_root_one_keeps_its_config_and_hooks(site: Site) -> None:
    git_dir = add_submodule(site)
    config, link = (git_dir / "config").read_text(), (site.project / "sub/.git").read_text()
    pwned = site.outside / "pwn"
    await bash(site, f"git -C sub config core.fsmonitor 'touch {pwned}'; echo x > .git/modules/sub/hooks/post-checkout")
    await bash(site, "echo 'gitdir: /tmp/evil' > sub/.git")
    assert (git_dir / "config").read_text() == config and (site.project / "sub/.git").read_text() == link
    assert not (git_dir / "hooks/post-checkout").exists()
    users_git_status(site.project / "sub")
    assert not pwned.exists()


def bare_repository(directory: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(directory)], check=True)


def has_branch(git_dir: Path, branch: str) -> bool:
    found = subprocess.run(["git", "-C", str(git_dir), "rev-parse", "-q", "--verify", branch], check=False)
    return found.returncode == 0


async def test_a_planted_bare_repository_under_any_name_never_runs_on_the_host(site: Site) -> None:
    # Git takes any dir with HEAD, objects and refs for a repository when run inside it, whatever its name.
    pwned = site.outside / "pwn"
    plant = f"git init -q --bare vendor/x.git && git -C vendor/x.git config core.fsmonitor 'touch {pwned}'"
    result = await bash(site, plant)
    assert not (site.project / "vendor/x.git").exists()
    assert f"{site.project / 'vendor/x.git'} -> " in result.output
    (site.project / "vendor/x.git").mkdir(parents=True)
    users_git_status(site.project / "vendor/x.git")
    assert not pwned.exists()


async def test_an_existing_bare_repository_keeps_its_config_and_can_still_be_pushed_to(site: Site) -> None:
    remote = site.project / "remote.git"
    bare_repository(remote)
    config = (remote / "config").read_text()
    pwned = site.outside / "pwn"
    await bash(site, f"git -C remote.git config core.fsmonitor 'touch {pwned}'")
    assert (remote / "config").read_text() == config
    git = "git -c user.email=a@b -c user.name=a"
    result = await bash(site, f"{git} commit -q --allow-empty -m one && git push -q ./remote.git HEAD:main && echo ok")
    assert result.output.endswith("ok\n"), result.output
    assert has_branch(remote, "main")
    asker = headless()  # renamed, it is carried along as a nested repository is, nothing asked or moved
    await bash(site, "mv remote.git moved.git", asker)
    assert asker.of("protected_path") == [] and has_branch(site.project / "moved.git", "main")
