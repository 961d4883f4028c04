"""apply_patch against the rules and the disk: a move's destination is judged by `edit`, sections of one file
compose, and a patch that cannot be applied in full changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.permission.rules import DeniedError
from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.contract import ToolContext, ToolResult

pytestmark = pytest.mark.anyio


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
