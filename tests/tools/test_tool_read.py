"""The read tool (reference §14.4), with outputs shaped exactly like OpenCode 1.18.33's recorded ones."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path

import pytest
from attrs import frozen
from tool_fakes import Asker

from strata_core.message import MessageWithParts
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.contract import ToolContext, ToolFailure

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 20


@frozen
class Block:
    source: str
    text: str


@frozen
class FakeInstructions:
    blocks: tuple[Block, ...]

    async def resolve(self, messages: Sequence[MessageWithParts], filepath: Path, message_id: str) -> list[Block]:
        return list(self.blocks)


async def read(ctx: ToolContext, path: Path | str, **args: object) -> str:
    result = await ReadTool().execute({"filePath": str(path), **args}, ctx)
    return result.output


async def test_a_text_file_is_framed_and_numbered(project: Path, ctx: ToolContext) -> None:
    (project / "notes.txt").write_text("line1\nline2\nneedle here\n")
    result = await ReadTool().execute({"filePath": str(project / "notes.txt")}, ctx)
    assert result.output == (
        f"<path>{project}/notes.txt</path>\n<type>file</type>\n<content>\n"
        "1: line1\n2: line2\n3: needle here\n\n(End of file - total 3 lines)\n</content>"
    )
    assert result.title == "notes.txt"
    display = {
        "type": "file",
        "path": str(project / "notes.txt"),
        "text": "line1\nline2\nneedle here",
        "lineStart": 1,
        "lineEnd": 3,
        "totalLines": 3,
        "truncated": False,
    }
    assert result.metadata == {
        "preview": "line1\nline2\nneedle here",
        "truncated": False,
        "loaded": [],
        "display": display,
    }


async def test_nearby_instructions_are_appended_in_a_system_reminder(project: Path, ctx: ToolContext) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "notes.txt").write_text("a\n")
    block = Block(str(project / "sub/AGENTS.md"), f"Instructions from: {project}/sub/AGENTS.md\nsub rules\n")
    tool = ReadTool(instructions=FakeInstructions((block,)))
    result = await tool.execute({"filePath": str(project / "sub" / "notes.txt")}, ctx)
    assert result.output.endswith(
        f"</content>\n\n<system-reminder>\nInstructions from: {project}/sub/AGENTS.md\nsub rules\n\n</system-reminder>"
    )
    assert result.metadata["loaded"] == [f"{project}/sub/AGENTS.md"]


async def test_a_directory_lists_entries_with_slashes_for_directories(project: Path, ctx: ToolContext) -> None:
    sub = project / "sub"
    (sub / "inner").mkdir(parents=True)
    (sub / "notes.txt").write_text("x")
    (sub / "AGENTS.md").write_text("x")
    (sub / "linked").symlink_to(sub / "inner")
    result = await ReadTool().execute({"filePath": str(sub)}, ctx)
    assert result.output == (
        f"<path>{sub}</path>\n<type>directory</type>\n<entries>\nAGENTS.md\ninner/\nlinked/\nnotes.txt\n\n"
        "(4 entries)\n</entries>"
    )
    assert result.metadata["truncated"] is False


async def test_a_directory_window_says_how_to_read_on(project: Path, ctx: ToolContext) -> None:
    for name in "abcde":
        (project / f"{name}.txt").write_text("x")
    output = await read(ctx, project, offset=2, limit=2)  # entries: .git/ a.txt b.txt c.txt d.txt e.txt
    assert output.endswith(
        "<entries>\na.txt\nb.txt\n\n(Showing 2 of 6 entries. Use 'offset' parameter to read beyond entry 4)\n</entries>"
    )


async def test_a_missing_file_suggests_similar_names(project: Path, ctx: ToolContext) -> None:
    (project / "notes.txt").write_text("x")
    (project / "Notebook.md").write_text("x")
    with pytest.raises(ToolFailure) as error:
        await read(ctx, project / "note")
    assert str(error.value) == (
        f"File not found: {project}/note\n\nDid you mean one of these?\n{project}/Notebook.md\n{project}/notes.txt"
    )
    with pytest.raises(ToolFailure, match=r"^File not found: .*/zzz$"):
        await read(ctx, project / "zzz")


async def test_offset_and_limit_choose_a_window(project: Path, ctx: ToolContext) -> None:
    (project / "code.py").write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    output = await read(ctx, project / "code.py", offset=2, limit=2)
    assert output.endswith(
        "<content>\n2:     return 1\n3: \n\n(Showing lines 2-3 of 5. Use offset=4 to continue.)\n</content>"
    )
    zero = await read(ctx, project / "code.py", offset=0)
    assert "\n1: def f():\n" in zero  # offset 0 reads from the start, as in OpenCode
    empty_window = await read(ctx, project / "code.py", limit=0)
    assert empty_window.endswith("<content>\n\n\n(Showing lines 1-0 of 5. Use offset=1 to continue.)\n</content>")


async def test_an_offset_past_the_end_is_an_error_except_for_an_empty_file(project: Path, ctx: ToolContext) -> None:
    (project / "short.txt").write_text("a\nb\nc\n")
    with pytest.raises(ToolFailure, match=r"^Offset 10 is out of range for this file \(3 lines\)$"):
        await read(ctx, project / "short.txt", offset=10)
    (project / "empty.txt").write_text("")
    assert (await read(ctx, project / "empty.txt")).endswith("<content>\n\n\n(End of file - total 0 lines)\n</content>")


async def test_long_lines_are_cut_at_2000_characters(project: Path, ctx: ToolContext) -> None:
    (project / "long.txt").write_text("x" * 2500 + "\n")
    output = await read(ctx, project / "long.txt")
    assert f"\n1: {'x' * 2000}... (line truncated to 2000 chars)\n\n(End of file - total 1 lines)" in output


async def test_output_is_capped_at_50_kib(project: Path, ctx: ToolContext) -> None:
    (project / "big.txt").write_text("".join(f"{i:099d}\n" for i in range(1000)))
    result = await ReadTool().execute({"filePath": str(project / "big.txt")}, ctx)
    # 99-character lines, one byte per newline between them (prefixes do not count): 512 lines fit in 51,200.
    assert result.output.endswith(
        "(Output capped at 50 KB. Showing lines 1-512. Use offset=513 to continue.)\n</content>"
    )
    assert result.metadata["truncated"] is True


async def test_crlf_lines_and_a_bom_do_not_leak_into_the_text(project: Path, ctx: ToolContext) -> None:
    (project / "win.txt").write_bytes("\ufeffa\r\nb\r\n".encode())
    assert "<content>\n1: a\n2: b\n\n(End of file - total 2 lines)" in await read(ctx, project / "win.txt")


@pytest.mark.parametrize(("name", "data"), [("archive.zip", b"PK\x03\x04 text"), ("blob", b"abc\x00def")])
async def test_binary_files_are_refused(project: Path, ctx: ToolContext, name: str, data: bytes) -> None:
    (project / name).write_bytes(data)
    with pytest.raises(ToolFailure, match=rf"^Cannot read binary file: {project}/{name}$"):
        await read(ctx, project / name)


async def test_images_and_pdfs_come_back_as_attachments(project: Path, ctx: ToolContext) -> None:
    (project / "pic.dat").write_bytes(PNG)  # sniffed by content, whatever the extension
    result = await ReadTool().execute({"filePath": str(project / "pic.dat")}, ctx)
    assert result.output == "Image read successfully"
    (attachment,) = result.attachments
    assert attachment.mime == "image/png"
    assert attachment.url == "data:image/png;base64," + base64.b64encode(PNG).decode()
    (project / "doc.pdf").write_bytes(b"%PDF-1.4\n%...")
    pdf = await ReadTool().execute({"filePath": str(project / "doc.pdf")}, ctx)
    assert pdf.output == "PDF read successfully" and pdf.attachments[0].mime == "application/pdf"
    assert pdf.metadata["truncated"] is False


@pytest.mark.parametrize(
    ("name", "asks"),
    [
        (".env", True),
        (".env.local", True),
        (".env.production", True),
        (".env.development.local", True),
        ("sub/.env", True),
        (".env.example", False),
        (".envrc", False),
        ("environment.ts", False),
    ],
)
async def test_env_files_ask_before_reading(
    project: Path, ctx: ToolContext, asker: Asker, name: str, asks: bool
) -> None:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("SECRET=1\n")
    await read(ctx, path)
    assert [ask.permission for ask in asker.asked] == (["read"] if asks else [])
    (call,) = asker.of("read")
    assert call.patterns == [name] and call.always == ["*"]


async def test_an_env_file_read_through_a_symlink_is_marked_secret_and_its_metadata_holds_none_of_it(
    project: Path, ctx: ToolContext
) -> None:
    (project / "sub").mkdir()
    (project / "sub" / ".env").write_text("SECRET=tok-1\n")
    (project / "sub" / "notes.txt").symlink_to(project / "sub" / ".env")
    block = Block(str(project / "sub/AGENTS.md"), "Instructions from: sub/AGENTS.md\nsub rules\n")
    result = await ReadTool(FakeInstructions((block,))).execute({"filePath": str(project / "sub/notes.txt")}, ctx)
    assert "1: SECRET=tok-1" in result.output and "sub rules" in result.output  # the model gets it all
    assert result.secret_files == ("sub/notes.txt",)
    assert "tok-1" not in repr(result.metadata) and result.metadata["display"]["lineEnd"] == 1
    assert result.metadata["loaded"] == []  # the output goes, so a resumed session gets the AGENTS.md again


async def test_a_symlink_to_an_env_file_still_asks(project: Path, ctx: ToolContext, asker: Asker) -> None:
    (project / ".env").write_text("SECRET=1\n")
    (project / "notes.txt").symlink_to(project / ".env")
    await read(ctx, project / "notes.txt")
    assert asker.asked and asker.asked[0].patterns == ["notes.txt", ".env"]


async def test_a_rejected_read_raises_and_reads_nothing(project: Path, ctx: ToolContext, asker: Asker) -> None:
    from strata_core.permission.rules import RejectedError

    (project / ".env").write_text("SECRET=1\n")
    asker.reject.add("read")
    with pytest.raises(RejectedError):
        await read(ctx, project / ".env")
