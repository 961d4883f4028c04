"""The write tool: whole files, parents created, `exists`, BOM kept, edit permission, outside paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import Asker

from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import ToolContext, ToolResult

pytestmark = pytest.mark.anyio


async def write(ctx: ToolContext, path: Path | str, content: str) -> ToolResult:
    return await WriteTool().execute({"filePath": str(path), "content": content}, ctx)


async def test_a_new_file_is_written_with_its_parent_directories(project: Path, ctx: ToolContext) -> None:
    result = await write(ctx, project / "new" / "dir" / "f.txt", "new\n")
    assert result.output == "Wrote file successfully."
    assert result.title == "new/dir/f.txt"
    assert (project / "new" / "dir" / "f.txt").read_text() == "new\n"
    assert result.metadata["exists"] is False and result.metadata["filepath"] == f"{project}/new/dir/f.txt"
    assert "+new" in result.metadata["diff"]


async def test_an_existing_file_is_replaced(project: Path, ctx: ToolContext) -> None:
    (project / "z.txt").write_text("needle z\n")
    result = await write(ctx, "z.txt", "over\n")
    assert (project / "z.txt").read_text() == "over\n"
    assert result.metadata["exists"] is True
    assert "-needle z\n+over" in result.metadata["diff"]


async def test_an_existing_byte_order_mark_is_kept(project: Path, ctx: ToolContext) -> None:
    (project / "b.txt").write_bytes("\ufeffold\n".encode())
    await write(ctx, project / "b.txt", "new\n")
    assert (project / "b.txt").read_bytes() == "\ufeffnew\n".encode()


async def test_writing_asks_the_edit_permission_for_the_relative_path(
    project: Path, ctx: ToolContext, asker: Asker
) -> None:
    await write(ctx, project / "docs" / "x.md", "# x\n")
    (ask,) = asker.of("edit")
    assert ask.patterns == ["docs/x.md"] and ask.metadata["filepath"] == f"{project}/docs/x.md"


async def test_writing_through_a_symlink_out_of_the_project_asks_external_directory(
    project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (project / "out").symlink_to(outside)
    await write(ctx, project / "out" / "planted.sh", "echo\n")
    assert [ask.patterns for ask in asker.of("external_directory")] == [[f"{outside}/*"]]
    assert (outside / "planted.sh").read_text() == "echo\n"
