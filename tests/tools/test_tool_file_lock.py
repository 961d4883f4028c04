"""edit, write and apply_patch share one lock per file: two calls on one file in the same step lose nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import define
from tool_fakes import MakeContext

from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.builtin.edit import EditTool, file_lock
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import Tool

pytestmark = pytest.mark.anyio


@define
class HeldAsk:
    """An asker that keeps the first tool between reading its file and writing it (at its `edit` ask) until
    the second tool has finished or waits for the file's lock: whichever comes first shows whether they share it."""

    path: Path
    first_asking: anyio.Event
    second_done: anyio.Event

    async def __call__(
        self, permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
    ) -> None:
        if permission != "edit":
            return
        self.first_asking.set()
        with anyio.fail_after(5):
            # Polled: nothing signals that a task has started to wait for a lock.
            while not self.second_done.is_set() and file_lock(self.path).statistics().tasks_waiting == 0:  # noqa: ASYNC110
                await anyio.sleep(0.01)


async def _first_held_then_second(
    make_ctx: MakeContext, path: Path, first: tuple[Tool, dict[str, Any]], second: tuple[Tool, dict[str, Any]]
) -> None:
    asking, done = anyio.Event(), anyio.Event()

    async def run_second() -> None:
        await asking.wait()  # the first call has read the file and not yet written it
        await second[0].execute(second[1], make_ctx(call_id="second"))
        done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(run_second)
        await first[0].execute(first[1], make_ctx(call_id="first", ask=HeldAsk(path, asking, done)))


async def test_a_write_during_an_edit_of_the_same_file_comes_after_it(project: Path, make_ctx: MakeContext) -> None:
    path = project / "f.txt"
    path.write_text("original\n")
    edit = {"filePath": str(path), "oldString": "original", "newString": "edited"}
    write = {"filePath": str(path), "content": "written by write\n"}
    await _first_held_then_second(make_ctx, path, (EditTool(), edit), (WriteTool(), write))
    assert path.read_text() == "written by write\n"


async def test_an_edit_during_a_patch_of_the_same_file_sees_the_patched_text(
    project: Path, make_ctx: MakeContext
) -> None:
    path = project / "g.txt"
    path.write_text("a\nb\n")
    text = "*** Begin Patch\n*** Update File: g.txt\n@@\n-a\n+A\n*** End Patch"
    edit = {"filePath": str(path), "oldString": "b", "newString": "B"}
    await _first_held_then_second(make_ctx, path, (ApplyPatchTool(), {"patchText": text}), (EditTool(), edit))
    assert path.read_text() == "A\nB\n"


async def test_a_patch_during_a_write_of_the_same_file_patches_the_written_text(
    project: Path, make_ctx: MakeContext
) -> None:
    path = project / "h.txt"
    path.write_text("old\n")
    text = "*** Begin Patch\n*** Update File: h.txt\n@@\n-new\n+newer\n*** End Patch"
    write = {"filePath": str(path), "content": "new\n"}
    await _first_held_then_second(make_ctx, path, (WriteTool(), write), (ApplyPatchTool(), {"patchText": text}))
    assert path.read_text() == "newer\n"
