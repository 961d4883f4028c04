""".env files past the old 2,000: every one reads empty inside (bwrap's options through a memfd, the masks
bound by the in-namespace masker), and past the cap the call is refused rather than run with secrets visible."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sandbox_kit import Site, bash_tool, needs_bwrap, run_bash

from strata_core.sandbox import describe
from strata_core.sandbox.masks import TooManySecretFilesError

pytestmark = needs_bwrap


def make_secrets(project: Path, count: int) -> None:
    for index in range(count):
        directory = project / f"fixtures{index % 25}"
        directory.mkdir(exist_ok=True)
        (directory / f"case{index}.env").write_bytes(b"TOKEN=SECRET\n")


@pytest.mark.anyio
async def test_past_two_thousand_every_env_file_reads_empty(site: Site) -> None:
    make_secrets(site.project, 2_500)
    command = "find . -name '*.env' | wc -l; find . -name '*.env' -exec cat {} + | wc -c; echo x > fixtures3/case3.env"
    result = await run_bash(bash_tool(site), site, command)
    assert result.output.split()[:2] == ["2500", "0"], result.output
    assert (site.project / "fixtures3/case3.env").read_bytes() == b"TOKEN=SECRET\n"


def test_a_server_sees_them_empty_too(site: Site) -> None:
    make_secrets(site.project, 150)  # past bwrap's own binds: the masker, reached through /proc by /bin/sh
    sandbox = bash_tool(site).shell_sandbox()
    prepared = sandbox.prepare_server(["sh", "-c", "cat fixtures*/*.env | wc -c"], cwd=site.project, root=site.project)
    try:
        done = subprocess.run(prepared.argv, cwd=site.project, capture_output=True, text=True, timeout=30, check=False)
    finally:
        sandbox.finish(prepared)
    assert done.stdout.strip() == "0", done.stderr


@pytest.mark.anyio
async def test_past_the_cap_the_call_is_refused(site: Site) -> None:
    make_secrets(site.project, 4)
    tool = bash_tool(site)
    tool.shell_sandbox().max_secret_files = 3
    with pytest.raises(TooManySecretFilesError, match=r"holds 4 secret files .* more than the 3 ") as refused:
        await run_bash(tool, site, "touch ran")
    assert "danger-full-access" in str(refused.value)
    assert not (site.project / "ran").exists()
    tool.shell_sandbox().max_secret_files = 4
    await run_bash(tool, site, "touch ran")
    assert (site.project / "ran").exists()


def test_debug_sandbox_shows_the_refusal_instead_of_failing(site: Site) -> None:
    make_secrets(site.project, 2)
    sandbox = bash_tool(site).shell_sandbox()
    sandbox.max_secret_files = 1
    shown = describe(sandbox, site.project, {}, frozenset())
    assert "holds 2 secret files" in str(shown["problem"]) and shown["mode"] == "workspace-write"
