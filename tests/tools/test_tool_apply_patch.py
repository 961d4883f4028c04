"""apply_patch on real files: the whole grammar, fuzzy context, all-or-nothing, one permission ask."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import Asker

from strata_core.tool.builtin.apply_patch import ApplyPatchTool
from strata_core.tool.contract import ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.patch import parse_patch

pytestmark = pytest.mark.anyio


async def patch(ctx: ToolContext, *lines: str) -> ToolResult:
    text = "\n".join(["*** Begin Patch", *lines, "*** End Patch"])
    return await ApplyPatchTool().execute({"patchText": text}, ctx)


async def test_add_update_and_delete_in_one_patch(project: Path, ctx: ToolContext, asker: Asker) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def greet():\n    print('Hi')\n\ngreet()\n")
    (project / "obsolete.txt").write_text("old\n")
    result = await patch(
        ctx,
        "*** Add File: docs/hello.txt",
        "+Hello world",
        "*** Update File: src/app.py",
        "@@ def greet():",
        "-    print('Hi')",
        "+    print('Hello, world!')",
        "*** Delete File: obsolete.txt",
    )
    assert result.output == "Success. Updated the following files:\nA docs/hello.txt\nM src/app.py\nD obsolete.txt"
    assert result.title == result.output
    assert (project / "docs" / "hello.txt").read_text() == "Hello world\n"
    assert (project / "src" / "app.py").read_text() == "def greet():\n    print('Hello, world!')\n\ngreet()\n"
    assert not (project / "obsolete.txt").exists()
    (ask,) = asker.of("edit")
    assert ask.patterns == ["docs/hello.txt", "src/app.py", "obsolete.txt"]
    assert ask.metadata["filepath"] == "docs/hello.txt, src/app.py, obsolete.txt"
    assert [f["type"] for f in result.metadata["files"]] == ["add", "update", "delete"]


async def test_a_file_can_be_moved_while_it_is_updated(project: Path, ctx: ToolContext) -> None:
    (project / "a.py").write_text("x = 1\ny = 2\n")
    result = await patch(ctx, "*** Update File: a.py", "*** Move to: lib/b.py", "@@", " x = 1", "-y = 2", "+y = 3")
    assert result.output.endswith("M lib/b.py")
    assert not (project / "a.py").exists() and (project / "lib" / "b.py").read_text() == "x = 1\ny = 3\n"


async def test_end_of_file_anchors_a_chunk_to_the_last_occurrence(project: Path, ctx: ToolContext) -> None:
    (project / "r.txt").write_text("end\nmiddle\nend\n")
    await patch(ctx, "*** Update File: r.txt", "@@", "-end", "+END", "*** End of File")
    assert (project / "r.txt").read_text() == "end\nmiddle\nEND\n"


async def test_several_chunks_apply_in_order(project: Path, ctx: ToolContext) -> None:
    (project / "m.py").write_text("class A:\n    v = 1\nclass B:\n    v = 1\n")
    await patch(ctx, "*** Update File: m.py", "@@ class A:", "-    v = 1", "+    v = 2", "@@ class B:", "-    v = 1",
                "+    v = 3")  # fmt: skip
    assert (project / "m.py").read_text() == "class A:\n    v = 2\nclass B:\n    v = 3\n"


async def test_whitespace_and_typographic_quotes_are_forgiven(project: Path, ctx: ToolContext) -> None:
    (project / "q.py").write_text("msg = 'don't'   \nother = 1\n")
    await patch(ctx, "*** Update File: q.py", "@@", "-msg = \u2018don\u2019t\u2019", "+msg = 'do'")
    assert (project / "q.py").read_text() == "msg = 'do'\nother = 1\n"


async def test_blank_context_lines_and_a_missing_first_header_are_understood(project: Path, ctx: ToolContext) -> None:
    (project / "b.py").write_text("a = 1\n\nb = 2\n")
    await patch(ctx, "*** Update File: b.py", " a = 1", "", "-b = 2", "+b = 20")
    assert (project / "b.py").read_text() == "a = 1\n\nb = 20\n"


async def test_crlf_files_keep_their_line_endings(project: Path, ctx: ToolContext) -> None:
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    await patch(ctx, "*** Update File: w.txt", "@@", " one", "-two", "+deux")
    assert (project / "w.txt").read_bytes() == b"one\r\ndeux\r\n"


async def test_a_heredoc_wrapper_is_tolerated(project: Path, ctx: ToolContext) -> None:
    text = "cat <<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+hi\n*** End Patch\nEOF"
    await ApplyPatchTool().execute({"patchText": text}, ctx)
    assert (project / "h.txt").read_text() == "hi\n"


async def test_a_patch_that_fails_anywhere_changes_nothing(project: Path, ctx: ToolContext) -> None:
    (project / "keep.py").write_text("a = 1\n")
    with pytest.raises(ToolFailure) as error:
        await patch(ctx, "*** Add File: new.txt", "+x", "*** Update File: keep.py", "@@", "-zzz = 9", "+q")
    assert str(error.value) == (
        f"apply_patch verification failed: Error: Failed to find expected lines in {project}/keep.py:\nzzz = 9"
    )
    assert not (project / "new.txt").exists() and (project / "keep.py").read_text() == "a = 1\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "patchText is required"),
        ("hello", "apply_patch verification failed: Error: Invalid patch format: missing Begin/End markers"),
        ("*** Begin Patch\n*** End Patch", "patch rejected: empty patch"),
        ("*** Begin Patch\nnonsense\n*** End Patch", "apply_patch verification failed: no hunks found"),
    ],
)
async def test_malformed_patches_are_rejected(ctx: ToolContext, text: str, message: str) -> None:
    with pytest.raises(ToolFailure) as error:
        await ApplyPatchTool().execute({"patchText": text}, ctx)
    assert str(error.value) == message


async def test_updating_a_missing_file_or_an_unknown_context_fails(project: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure, match=r"^apply_patch verification failed: Failed to read file to update: "):
        await patch(ctx, "*** Update File: missing.py", "@@", "-a", "+b")
    (project / "c.py").write_text("a\n")
    with pytest.raises(ToolFailure, match=r"Failed to find context 'def nowhere\(\):' in "):
        await patch(ctx, "*** Update File: c.py", "@@ def nowhere():", "-a", "+b")


async def test_patching_outside_the_project_asks_for_external_directory(
    outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    await patch(ctx, f"*** Add File: {outside}/planted.txt", "+x")
    assert [ask.patterns for ask in asker.of("external_directory")] == [[f"{outside}/*"]]


def test_the_parser_reads_every_header() -> None:
    hunks = parse_patch("*** Begin Patch\n*** Add File: a\n+1\n+2\n*** Delete File: b\n*** Update File: c\n"
                        "*** Move to: d\n@@ ctx\n-x\n+y\n*** End Patch")  # fmt: skip
    assert [(h.kind, h.path, h.move_path) for h in hunks] == [("add", "a", None), ("delete", "b", None),
                                                              ("update", "c", "d")]  # fmt: skip
    assert hunks[0].contents == "1\n2"
    assert hunks[2].chunks[0].context == "ctx" and hunks[2].chunks[0].old_lines == ("x",)
