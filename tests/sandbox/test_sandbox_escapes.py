"""The bash forms that escaped the project on main (issue 12), each tried inside the sandbox, with every
permission allowed (as `--auto` would): reading the file beside the project returns nothing of it, and writing
beside the project changes nothing there, in workspace-write and in read-only mode."""

from __future__ import annotations

import itertools
import threading

import pytest
from sandbox_kit import READS, SECRET, SECRET_FILE, WRITES, Site, bash_tool, needs_bwrap, run_bash

from strata_core.config.schema import SandboxMode

pytestmark = [pytest.mark.anyio, needs_bwrap]

MODES: list[SandboxMode] = ["workspace-write", "read-only"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", READS.values(), ids=READS.keys())
async def test_reading_beside_the_project_returns_nothing_of_it(site: Site, mode: SandboxMode, command: str) -> None:
    result = await run_bash(bash_tool(site, mode), site, command)
    assert SECRET not in result.output
    assert result.metadata["exit"] != 0 or result.output.strip() in ("", "(no output)")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("command", WRITES.values(), ids=WRITES.keys())
async def test_writing_beside_the_project_changes_nothing_there(site: Site, mode: SandboxMode, command: str) -> None:
    await run_bash(bash_tool(site, mode), site, command)
    assert sorted(path.name for path in site.outside.iterdir()) == ["secret.txt"]
    assert site.secret.read_text() == SECRET + "\n"


async def test_an_absolute_path_beside_the_project_is_not_there_either(site: Site) -> None:
    result = await run_bash(bash_tool(site), site, f"cat {site.secret}; ls {site.root}")
    assert SECRET not in result.output and "outside" not in result.output.replace(str(site.secret), "")


async def test_the_forms_themselves_work_inside_the_project(site: Site) -> None:
    # The escapes above fail for want of the file, not because the commands cannot run in the sandbox.
    (site.project / "inside.txt").write_text("inside-42\n")
    tool = bash_tool(site)
    for command in [*READS.values()]:
        inside = command.replace(SECRET_FILE, "inside.txt").replace("link.txt", "link2.txt")
        if "base64" in inside:
            inside = "echo Y2F0IGluc2lkZS50eHQ= | base64 -d | sh"
        result = await run_bash(tool, site, inside)
        assert "inside-42" in result.output, (inside, result.output)
    result = await run_bash(tool, site, "echo done > x && tee y < x >/dev/null && sed -i s/done/DONE/ y && cat y")
    assert result.output == "DONE\n"


async def test_danger_full_access_is_what_it_says(site: Site) -> None:
    result = await run_bash(bash_tool(site, "danger-full-access"), site, f"cat {SECRET_FILE}")
    assert result.output == SECRET + "\n"


async def test_a_symlink_flipped_by_another_process_never_reaches_outside(site: Site) -> None:
    # Issue 12: 13 of 40 `cat link` calls read the outside file while a racing process flipped the link.
    (site.project / "inside.txt").write_text("inside\n")
    link = site.project / "link"
    link.symlink_to("inside.txt")
    stop = threading.Event()

    def flip() -> None:
        targets = itertools.cycle([site.secret, site.project / "inside.txt"])
        while not stop.is_set():
            spare = site.project / "link.new"
            spare.unlink(missing_ok=True)
            spare.symlink_to(next(targets))
            spare.replace(link)

    flipper = threading.Thread(target=flip)
    flipper.start()
    try:
        tool = bash_tool(site)
        outputs = [(await run_bash(tool, site, "cat link")).output for _ in range(40)]
    finally:
        stop.set()
        flipper.join()
    assert not any(SECRET in output for output in outputs)
    assert any("inside" in output for output in outputs)  # the race was on: the inside target was read too
