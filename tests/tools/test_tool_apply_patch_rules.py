"""apply_patch against the rules and the disk: a move's destination is judged by `edit`, sections of one file
compose, and a patch that cannot be applied in full changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from denied_access import run_held_to_permissions
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.permission.rules import DeniedError
from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.contract import ToolContext, ToolFailure, ToolResult

pytestmark = pytest.mark.anyio
HELPERS = Path(__file__).parents[1] / "helpers"


async def patch(ctx: ToolContext, *lines: str) -> ToolResult:
    text = "\n".join(["*** Begin Patch", *lines, "*** End Patch"])
    return await ApplyPatchTool().execute({"patchText": text}, ctx)


async def test_a_move_into_a_denied_path_is_denied(project: Path, make_ctx: MakeContext) -> None:
    (project / "secret").mkdir()
    (project / "secret" / "keep.txt").write_text("protected\n")
    (project / "ok.txt").write_text("harmless\n")
    denying = DEFAULT_RULES + rules({"edit": {"*": "allow", "secret/*": "deny"}})
    asker = Asker(rules=denying)
    with pytest.raises(DeniedError):
        await patch(make_ctx(ask=asker, ruleset=denying), "*** Update File: ok.txt", "*** Move to: secret/keep.txt",
                    "@@", "-harmless", "+moved")  # fmt: skip
    assert (project / "secret" / "keep.txt").read_text() == "protected\n"
    assert (project / "ok.txt").read_text() == "harmless\n"
    (ask,) = asker.of("edit")
    assert ask.patterns == ["ok.txt", "secret/keep.txt"]


async def test_two_sections_of_one_file_both_apply_in_order(project: Path, ctx: ToolContext) -> None:
    (project / "a.txt").write_text("one\ntwo\nthree\n")
    result = await patch(ctx, "*** Update File: a.txt", "@@", "-one", "+ONE", "*** Update File: a.txt", "@@",
                         "-three", "+THREE")  # fmt: skip
    assert (project / "a.txt").read_text() == "ONE\ntwo\nTHREE\n"
    assert result.output == "Success. Updated the following files:\nM a.txt\nM a.txt"
    first, second = result.metadata["files"]
    assert "+ONE" in first["patch"] and "+THREE" in second["patch"] and "-ONE" not in second["patch"]


async def test_a_later_section_sees_a_file_an_earlier_one_added_or_moved(project: Path, ctx: ToolContext) -> None:
    (project / "old.txt").write_text("x\n")
    await patch(ctx, "*** Add File: new.txt", "+draft", "*** Update File: new.txt", "@@", "-draft", "+final",
                "*** Update File: old.txt", "*** Move to: moved.txt", "@@", "-x", "+y",
                "*** Update File: moved.txt", "@@", "-y", "+z")  # fmt: skip
    assert (project / "new.txt").read_text() == "final\n"
    assert (project / "moved.txt").read_text() == "z\n" and not (project / "old.txt").exists()


async def test_a_section_after_a_delete_of_its_file_fails_and_nothing_changes(project: Path, ctx: ToolContext) -> None:
    (project / "gone.txt").write_text("g\n")
    with pytest.raises(ToolFailure, match="Failed to read file to update: "):
        await patch(ctx, "*** Delete File: gone.txt", "*** Update File: gone.txt", "@@", "-g", "+h")
    assert (project / "gone.txt").read_text() == "g\n"


async def test_a_file_where_a_directory_must_go_stops_the_patch_before_anything_is_written(
    project: Path, ctx: ToolContext
) -> None:
    (project / "e.txt").write_text("e1\n")
    (project / "blocker").write_text("i am a file\n")
    with pytest.raises(ToolFailure) as error:
        await patch(ctx, "*** Update File: e.txt", "@@", "-e1", "+E1", "*** Add File: blocker/child.txt", "+child")
    assert str(error.value) == (
        f"apply_patch verification failed: cannot write {project}/blocker/child.txt: {project}/blocker is a file, "
        "not a directory. Nothing was changed."
    )
    assert (project / "e.txt").read_text() == "e1\n" and (project / "blocker").read_text() == "i am a file\n"


async def test_a_patch_that_writes_one_path_as_a_file_and_as_a_directory_is_refused(
    project: Path, ctx: ToolContext
) -> None:
    (project / "e.txt").write_text("e1\n")
    with pytest.raises(ToolFailure, match=r"the patch also writes .*/fresh as a file\. Nothing was changed\.$"):
        await patch(ctx, "*** Update File: e.txt", "@@", "-e1", "+E1", "*** Add File: fresh/deeper/x.txt", "+x",
                    "*** Add File: fresh", "+f")  # fmt: skip
    assert (project / "e.txt").read_text() == "e1\n" and not (project / "fresh").exists()


async def test_a_directory_where_a_file_goes_stops_the_patch(project: Path, ctx: ToolContext) -> None:
    (project / "e.txt").write_text("e1\n")
    (project / "src").mkdir()
    (project / "b.txt").write_text("b\n")
    with pytest.raises(ToolFailure, match=r"cannot write .*/src: it is a directory, not a regular file\."):
        await patch(ctx, "*** Update File: e.txt", "@@", "-e1", "+E1", "*** Update File: b.txt",
                    "*** Move to: src", "@@", "-b", "+c")  # fmt: skip
    assert (project / "e.txt").read_text() == "e1\n" and (project / "b.txt").read_text() == "b\n"


_PATCH_HELD_TO_PERMISSIONS = """
import sys
from pathlib import Path

import anyio

sys.path.insert(0, sys.argv[1])
from tool_fakes import Asker, Updates

from strata_core.llm import ModelInfo
from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.contract import ToolContext, ToolFailure

project = Path(sys.argv[2])
asker = Asker()
ctx = ToolContext(session_id="ses_test", message_id="msg_test", call_id="call_test", agent="build",
                  ruleset=asker.rules, directory=project, worktree=project,
                  model=ModelInfo(provider_id="mock", id="mock-model"), ask=asker, update_metadata=Updates())
try:
    anyio.run(ApplyPatchTool().execute, {"patchText": sys.argv[3]}, ctx)
    print("applied")
except ToolFailure as failure:
    print(failure)
"""


def test_a_directory_without_write_permission_stops_the_patch(project: Path) -> None:
    """Run where the mode bits apply (root without its override capabilities), as the tool would for a user."""
    (project / "e.txt").write_text("e1\n")
    (project / "locked").mkdir(mode=0o555)
    text = "\n".join(["*** Begin Patch", "*** Update File: e.txt", "@@", "-e1", "+E1", "*** Add File: locked/x.txt",
                      "+x", "*** End Patch"])  # fmt: skip
    said = run_held_to_permissions(_PATCH_HELD_TO_PERMISSIONS, str(HELPERS), str(project), text)
    assert re.search(r"no permission to create files in .*/locked\. Nothing was changed\.$", said.strip()), said
    assert (project / "e.txt").read_text() == "e1\n"
