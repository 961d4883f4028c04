"""Containment leaves no trace in the user's tree: nothing Strata makes to protect config or git is seen by
`ls` or `git status`, inside the sandbox or outside, nor can be committed; so concurrent Strata processes in
one project have nothing of each other's to take for a command's doing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_harness import RUN_TIMEOUT, STRATA, isolated_env, mock_provider_config
from sandbox_kit import SYSTEM_PATH, Site, bash_tool, needs_bwrap, run_bash

from strata_providers.testing import ScriptedServer

pytestmark = needs_bwrap

IDENTITY = "-c user.email=a@b -c user.name=a"


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True, check=True).stdout


def listing(directory: Path) -> str:
    return "".join(f"{name}\n" for name in sorted(path.name for path in directory.iterdir()))


@pytest.mark.anyio
@pytest.mark.parametrize("workdir", [".", "pkg/sub"])
async def test_git_status_inside_is_the_users_and_a_commit_holds_only_their_files(site: Site, workdir: str) -> None:
    (site.project / "opencode.json").write_text("{}\n")
    (site.project / workdir).mkdir(parents=True, exist_ok=True)
    (site.project / workdir / "notes.txt").write_text("mine\n")
    users_status = git(site.project / workdir, "status", "--short", "--untracked-files=all")
    users_listing = listing(site.project / workdir)
    command = (
        "git status --short --untracked-files=all; echo ---; LC_ALL=C ls -A | grep -v '^[.]git$'; echo ---; "
        f"git add -A && git {IDENTITY} commit -qm wip && git show --name-only --format= HEAD"
    )
    result = await run_bash(bash_tool(site), site, command, workdir=str(site.project / workdir))
    inside_status, inside_listing, committed = result.output.split("---\n")
    assert inside_status == users_status
    assert inside_listing == users_listing.replace(".git\n", "")
    assert sorted(committed.split()) == sorted(["opencode.json", f"{workdir}/notes.txt".removeprefix("./")])
    assert git(site.project, "status", "--short", "--untracked-files=all") == ""
    assert listing(site.project / workdir) == users_listing


RUNS = 20


def test_concurrent_runs_in_one_project_all_succeed(tmp_path: Path, site: Site) -> None:
    """Twenty `strata run` processes at once in one project, each its own session running a bash command."""
    (site.project / "opencode.json").write_text("{}\n")
    git(site.project, "add", "opencode.json")
    git(site.project, *IDENTITY.split(), "commit", "-q", "-m", "base")
    servers = [
        ScriptedServer(
            [
                {
                    "tool_calls": [
                        {"name": "bash", "arguments": {"command": f"git status --short; echo {index} > out{index}"}}
                    ]
                },
                {"text": "done"},
            ]
        )
        for index in range(RUNS)
    ]
    env = {**isolated_env(tmp_path), "PATH": SYSTEM_PATH + ":" + str(STRATA.parent)}
    for server in servers:
        server.__enter__()
    try:
        runs = [
            subprocess.Popen(
                [str(STRATA), "run", "go"],
                cwd=site.project,
                env={**env, "OPENCODE_CONFIG_CONTENT": json.dumps(mock_provider_config(server.base_url))},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for server in servers
        ]
        ended = [(run.wait(timeout=RUN_TIMEOUT * 3), run.communicate()[1]) for run in runs]
    finally:
        for server in servers:
            server.__exit__()
    assert [said for code, said in ended if code != 0] == []
    assert sorted(path.name for path in site.project.glob("out*")) == sorted(f"out{index}" for index in range(RUNS))
    assert git(site.project, "status", "--short") == "".join(sorted(f"?? out{index}\n" for index in range(RUNS)))
