"""The edit tool on real files: creation, BOM and line endings, errors, permission, metadata, concurrency."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from tool_fakes import Asker, Updates

from strata_core.permission.rules import RejectedError
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.contract import ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.edit_match import AMBIGUOUS, EMPTY_OLD, IDENTICAL, NOT_FOUND

pytestmark = pytest.mark.anyio


async def edit(ctx: ToolContext, path: Path | str, old: str, new: str, **extra: Any) -> ToolResult:
    return await EditTool().execute({"filePath": str(path), "oldString": old, "newString": new, **extra}, ctx)


async def test_a_unique_match_is_replaced_and_reported(project: Path, ctx: ToolContext) -> None:
    (project / "a.txt").write_text("hi\n")
    result = await edit(ctx, project / "a.txt", "hi", "hello")
    assert result.output == "Edit applied successfully."
    assert result.title == "a.txt"
    assert (project / "a.txt").read_text() == "hello\n"


async def test_ambiguous_and_missing_text_fail_with_opencodes_messages(project: Path, ctx: ToolContext) -> None:
    code = project / "code.py"
    code.write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    with pytest.raises(ToolFailure, match=f"^{AMBIGUOUS}$"):
        await edit(ctx, code, "    return 1", "    return 2")
    with pytest.raises(ToolFailure) as error:
        await edit(ctx, code, "nothere", "x")
    assert str(error.value) == NOT_FOUND
    await edit(ctx, code, "def   g():", "def h():")  # the oracle run: whitespace-normalised match
    assert code.read_text() == "def f():\n    return 1\n\ndef h():\n    return 1\n"


async def test_replace_all_changes_every_occurrence(project: Path, ctx: ToolContext) -> None:
    (project / "n.py").write_text("old = 1\nprint(old)\n")
    await edit(ctx, project / "n.py", "old", "new", replaceAll=True)
    assert (project / "n.py").read_text() == "new = 1\nprint(new)\n"


async def test_an_empty_old_string_creates_a_new_file_with_parents(project: Path, ctx: ToolContext) -> None:
    await edit(ctx, project / "deep" / "new.py", "", "created\n")
    assert (project / "deep" / "new.py").read_text() == "created\n"


async def test_an_empty_old_string_refuses_an_existing_file(project: Path, ctx: ToolContext) -> None:
    (project / "a.txt").write_text("keep\n")
    with pytest.raises(ToolFailure) as error:
        await edit(ctx, project / "a.txt", "", "x")
    assert str(error.value) == EMPTY_OLD
    assert (project / "a.txt").read_text() == "keep\n"


async def test_identical_strings_missing_files_and_directories_are_errors(project: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure, match=f"^{IDENTICAL}$"):
        await edit(ctx, project / "a.txt", "x", "x")
    with pytest.raises(ToolFailure, match=rf"^File {project}/missing.txt not found$"):
        await edit(ctx, project / "missing.txt", "x", "y")
    (project / "dir").mkdir()
    with pytest.raises(ToolFailure, match=rf"^Path is a directory, not a file: {project}/dir$"):
        await edit(ctx, project / "dir", "x", "y")


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
async def test_the_files_line_endings_are_kept(project: Path, ctx: ToolContext, ending: str) -> None:
    path = project / "e.txt"
    path.write_bytes(ending.join(["one", "two", "three", ""]).encode())
    await edit(ctx, path, "one\ntwo", "uno\ndos\nzwei")
    assert path.read_bytes() == ending.join(["uno", "dos", "zwei", "three", ""]).encode()


async def test_a_byte_order_mark_is_kept(project: Path, ctx: ToolContext) -> None:
    path = project / "bom.txt"
    path.write_bytes("\ufeffalpha\nbeta\n".encode())
    await edit(ctx, path, "beta", "gamma")
    assert path.read_bytes() == "\ufeffalpha\ngamma\n".encode()


async def test_bytes_that_are_not_utf8_survive_an_edit(project: Path, ctx: ToolContext) -> None:
    path = project / "latin1.txt"
    path.write_bytes(b"caf\xe9\nline\n")
    await edit(ctx, path, "line", "row")
    assert path.read_bytes() == b"caf\xe9\nrow\n"


async def test_metadata_carries_a_unified_diff_and_counts(project: Path, ctx: ToolContext, updates: Updates) -> None:
    (project / "a.txt").write_text("one\ntwo\nthree\n")
    result = await edit(ctx, project / "a.txt", "two", "2\n2b")
    diff = result.metadata["diff"]
    assert diff.startswith(
        f"Index: {project}/a.txt\n{'=' * 67}\n--- {project}/a.txt\n+++ {project}/a.txt\n@@ -1,3 +1,4 @@"
    )
    assert "\n-two\n+2\n+2b\n" in diff
    filediff = result.metadata["filediff"]
    assert (filediff["additions"], filediff["deletions"]) == (2, 1)
    assert filediff["file"] == f"{project}/a.txt" and filediff["patch"] == diff
    assert updates.seen and updates.seen[-1][1]["diff"] == diff


async def test_the_edit_permission_uses_the_relative_path_and_shows_the_diff(
    project: Path, ctx: ToolContext, asker: Asker
) -> None:
    (project / "src").mkdir()
    (project / "src" / "m.py").write_text("x = 1\n")
    await edit(ctx, "src/m.py", "x = 1", "x = 2")
    (ask,) = asker.of("edit")
    assert ask.patterns == ["src/m.py"] and ask.always == ["*"]
    assert ask.metadata["filepath"] == f"{project}/src/m.py" and "+x = 2" in ask.metadata["diff"]


async def test_a_rejected_edit_changes_nothing(project: Path, ctx: ToolContext, asker: Asker) -> None:
    (project / "a.txt").write_text("hi\n")
    asker.rules = ()  # no rule: every edit asks, and the person says no
    asker.reject.add("edit")
    with pytest.raises(RejectedError):
        await edit(ctx, project / "a.txt", "hi", "bye")
    assert (project / "a.txt").read_text() == "hi\n"


async def test_editing_outside_the_project_asks_for_external_directory(
    outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "o.txt").write_text("a\n")
    await edit(ctx, outside / "o.txt", "a", "b")
    assert [ask.patterns for ask in asker.of("external_directory")] == [[f"{outside}/*"]]


async def test_concurrent_edits_to_one_file_both_land(project: Path, ctx: ToolContext) -> None:
    path = project / "c.txt"
    path.write_text("first\nsecond\n")
    tool = EditTool()
    async with anyio.create_task_group() as group:
        group.start_soon(tool.execute, {"filePath": str(path), "oldString": "first", "newString": "1st"}, ctx)
        group.start_soon(tool.execute, {"filePath": str(path), "oldString": "second", "newString": "2nd"}, ctx)
    assert path.read_text() == "1st\n2nd\n"
