"""File tools open what they checked: a racing symlink flip, a hard link to an outside file, FIFOs and
sockets never get a file tool to the outside content or hang it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.runner import run_tool
from strata_core.tool.support.search import Search

pytestmark = pytest.mark.anyio

SECRET = "OUTSIDE-SECRET-42"
INSIDE = "inside content"
RUNS = 40


_FLIPPER = """
import os, sys
link, inside, outside = sys.argv[1:]
spare = link + ".tmp"
while True:
    for target in (outside, inside):
        try:
            os.unlink(spare)
        except FileNotFoundError:
            pass
        os.symlink(target, spare)
        os.replace(spare, link)  # atomic: the link always exists
"""


@contextmanager
def flipping(link: Path, inside: Path, outside: Path) -> Iterator[None]:
    """Another process that keeps swapping `link` between pointing inside and outside the project."""
    process = subprocess.Popen([sys.executable, "-c", _FLIPPER, str(link), str(inside), str(outside)])
    try:
        yield
    finally:
        process.kill()
        process.wait()


async def leaks(run: Callable[[], Awaitable[str]]) -> int:
    leaked = 0
    for _ in range(RUNS):
        leaked += SECRET in await run()
    return leaked


@pytest.fixture
def flip_setup(project: Path, outside: Path) -> tuple[Path, Path, Path]:
    inside = project / "real.txt"
    inside.write_text(INSIDE + "\n")
    secret = outside / "secret.txt"
    secret.write_text(SECRET + "\n")
    link = project / "link.txt"
    link.symlink_to(inside)
    return link, inside, secret


HEADLESS = (*DEFAULT_RULES, *rules({"external_directory": "ask"}))


def refusing_outside(make_ctx: MakeContext) -> tuple[ToolContext, Asker]:
    """A context whose `external_directory` asks are refused, as a headless run refuses them."""
    asker = Asker(rules=HEADLESS, reject={"external_directory"})
    return make_ctx(ask=asker, ruleset=HEADLESS), asker


async def test_read_never_returns_the_outside_file_through_a_flipping_symlink(
    make_ctx: MakeContext, flip_setup: tuple[Path, Path, Path]
) -> None:
    link, inside, secret = flip_setup
    ctx, _ = refusing_outside(make_ctx)

    async def run() -> str:
        outcome = await run_tool(ReadTool(), {"filePath": str(link)}, ctx, agent_ruleset=None)
        return outcome.result.output

    with flipping(link, inside, secret):
        assert await leaks(run) == 0


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_never_returns_the_outside_file_through_a_flipping_symlink(
    make_ctx: MakeContext, flip_setup: tuple[Path, Path, Path], use_rg: bool
) -> None:
    link, inside, secret = flip_setup
    ctx, _ = refusing_outside(make_ctx)
    tool = GrepTool(search=Search(use_rg=use_rg))

    async def run() -> str:
        outcome = await run_tool(tool, {"pattern": "SECRET|content", "path": str(link)}, ctx, agent_ruleset=None)
        return outcome.result.output

    with flipping(link, inside, secret):
        assert await leaks(run) == 0


async def test_write_and_edit_never_change_the_outside_file_through_a_flipping_symlink(
    make_ctx: MakeContext, flip_setup: tuple[Path, Path, Path]
) -> None:
    link, inside, secret = flip_setup
    ctx, _ = refusing_outside(make_ctx)
    with flipping(link, inside, secret):
        for index in range(RUNS):
            await run_tool(
                WriteTool(), {"filePath": str(link), "content": f"{INSIDE} {index}\n"}, ctx, agent_ruleset=None
            )
            edit = {"filePath": str(link), "oldString": "content", "newString": "CONTENT"}
            await run_tool(EditTool(), edit, ctx, agent_ruleset=None)
    assert secret.read_text() == SECRET + "\n"


async def test_a_hard_link_to_an_outside_file_asks_before_read_write_and_grep(
    project: Path, outside: Path, make_ctx: MakeContext
) -> None:
    secret = outside / "secret.txt"
    secret.write_text(SECRET + "\n")
    linked = project / "innocent.txt"
    os.link(secret, linked)
    ctx, asker = refusing_outside(make_ctx)

    read = await run_tool(ReadTool(), {"filePath": str(linked)}, ctx, agent_ruleset=None)
    assert read.is_error and SECRET not in read.result.output
    write = await run_tool(WriteTool(), {"filePath": str(linked), "content": "PWNED"}, ctx, agent_ruleset=None)
    assert write.is_error
    grep = await run_tool(GrepTool(), {"pattern": "SECRET"}, ctx, agent_ruleset=None)
    assert SECRET not in grep.result.output and str(linked) in grep.result.output  # named as left out
    assert secret.read_text() == SECRET + "\n"
    assert [ask.metadata.get("hardLink") for ask in asker.of("external_directory")] == [True, True]


async def test_a_hard_link_whose_other_name_is_inside_needs_no_ask(
    project: Path, make_ctx: MakeContext, asker: Asker
) -> None:
    (project / "a.txt").write_text("shared\n")
    os.link(project / "a.txt", project / "b.txt")
    result = await ReadTool().execute({"filePath": str(project / "b.txt")}, make_ctx())
    assert "1: shared" in result.output
    assert asker.of("external_directory") == []


@pytest.fixture
def fifo(project: Path) -> Path:
    path = project / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "tool, args",
    [
        (ReadTool(), {}),
        (GrepTool(), {"pattern": "x"}),
        (EditTool(), {"oldString": "a", "newString": "b"}),
        (WriteTool(), {"content": "x"}),
    ],
    ids=["read", "grep", "edit", "write"],
)
async def test_a_fifo_is_refused_at_once_by_every_file_tool(
    fifo: Path, ctx: ToolContext, tool: ReadTool | GrepTool | EditTool | WriteTool, args: dict[str, str]
) -> None:
    key = "path" if isinstance(tool, GrepTool) else "filePath"
    with anyio.fail_after(10):  # on main, opening the FIFO blocks for good
        outcome = await run_tool(tool, {**args, key: str(fifo)}, ctx, agent_ruleset=None)
    assert outcome.is_error
    assert outcome.error is not None and "FIFO (named pipe), not a regular file" in outcome.error


async def test_apply_patch_refuses_a_fifo(fifo: Path, ctx: ToolContext) -> None:
    patch = "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch"
    with anyio.fail_after(10):
        outcome = await run_tool(ApplyPatchTool(), {"patchText": patch}, ctx, agent_ruleset=None)
    assert outcome.error is not None and "not a regular file" in outcome.error


async def test_a_socket_and_a_device_are_refused(project: Path, ctx: ToolContext) -> None:
    sock_path = project / "s.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock_path))
        outcome = await run_tool(ReadTool(), {"filePath": str(sock_path)}, ctx, agent_ruleset=None)
    assert outcome.error is not None and "socket, not a regular file" in outcome.error
    device = await run_tool(ReadTool(), {"filePath": "/dev/zero"}, ctx, agent_ruleset=None)
    assert device.error is not None and "device, not a regular file" in device.error


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_over_a_tree_with_a_fifo_skips_it(fifo: Path, project: Path, ctx: ToolContext, use_rg: bool) -> None:
    (project / "a.txt").write_text("needle\n")
    with anyio.fail_after(10):
        outcome = await run_tool(GrepTool(search=Search(use_rg=use_rg)), {"pattern": "needle"}, ctx, agent_ruleset=None)
    assert "Found 1 matches" in outcome.result.output


def test_a_project_directory_swapped_after_the_check_is_not_opened(project: Path, make_ctx: MakeContext) -> None:
    from strata_core.tool.support.confined_file import ChangedWhileOpening, open_for_reading, resolve

    (project / "a.txt").write_text("checked\n")
    target = resolve(make_ctx(), "a.txt")
    project.rename(project.with_name("moved"))
    project.mkdir()
    (project / "a.txt").write_text("swapped in\n")
    with pytest.raises(ChangedWhileOpening):
        open_for_reading(target)
