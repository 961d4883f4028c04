"""Huge inputs stay bounded: long lines are cut while streaming, images shrink, writes have a ceiling."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from strata_core.image_fit import MAX_SIDE
from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.builtin.read import MAX_LINE_LENGTH, ReadTool
from strata_core.tool.builtin.write import WriteTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.runner import run_tool
from strata_core.tool.support.attachment_cap import MAX_ATTACHMENT_BYTES
from strata_core.tool.support.file_text import MAX_EDIT_BYTES

pytestmark = pytest.mark.anyio


async def test_a_file_of_one_huge_line_shows_its_start(project: Path, ctx: ToolContext) -> None:
    (project / "one.txt").write_bytes(b"ab" * 3_000_000)  # 6 MB, no newline
    result = await ReadTool().execute({"filePath": "one.txt"}, ctx)
    assert f"1: {('ab' * 1000)[:MAX_LINE_LENGTH]}... (line truncated to 2000 chars)" in result.output
    assert "(End of file - total 1 lines)" in result.output


async def test_lines_after_an_overlong_line_are_read_normally(project: Path, ctx: ToolContext) -> None:
    (project / "mixed.txt").write_text("x" * 100_000 + "\r\nsecond\rthird\n")
    result = await ReadTool().execute({"filePath": "mixed.txt"}, ctx)
    assert "2: second\n3: third" in result.output and "total 3 lines" in result.output


def _png(width: int, height: int, noisy: bool = False) -> bytes:
    out = io.BytesIO()
    if noisy:
        import os

        image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    else:
        image = Image.new("RGB", (width, height), (10, 200, 30))
    image.save(out, format="PNG")
    return out.getvalue()


def _attached(url: str) -> Image.Image:
    data = base64.b64decode(url.split(",", 1)[1])
    assert len(data) <= MAX_ATTACHMENT_BYTES
    return Image.open(io.BytesIO(data))


async def test_a_large_image_is_downscaled_before_it_is_attached(project: Path, ctx: ToolContext) -> None:
    (project / "big.png").write_bytes(_png(3000, 1500, noisy=True))  # ~13 MB of noise
    result = await ReadTool().execute({"filePath": "big.png"}, ctx)
    (attachment,) = result.attachments
    image = _attached(attachment.url)
    assert max(image.size) <= MAX_SIDE and image.size[0] == 2 * image.size[1]


async def test_a_small_image_is_attached_unchanged(project: Path, ctx: ToolContext) -> None:
    data = _png(64, 32)
    (project / "small.png").write_bytes(data)
    (attachment,) = (await ReadTool().execute({"filePath": "small.png"}, ctx)).attachments
    assert attachment.url == "data:image/png;base64," + base64.b64encode(data).decode()


async def test_an_image_too_large_to_decode_is_refused_by_its_header(project: Path, ctx: ToolContext) -> None:
    (project / "huge.png").write_bytes(_png(6000, 5000))
    outcome = await run_tool(ReadTool(), {"filePath": "huge.png"}, ctx, agent_ruleset=None)
    assert outcome.error is not None and "6000x5000 pixels" in outcome.error and not outcome.result.attachments


async def test_write_content_over_the_cap_is_refused(project: Path, ctx: ToolContext) -> None:
    content = "x" * (MAX_EDIT_BYTES + 1)
    outcome = await run_tool(WriteTool(), {"filePath": "big.txt", "content": content}, ctx, agent_ruleset=None)
    assert outcome.error is not None and "handle files up to 5 MB" in outcome.error
    assert not (project / "big.txt").exists()


async def test_edit_of_a_file_over_the_cap_is_refused(project: Path, ctx: ToolContext) -> None:
    (project / "big.txt").write_text("needle\n" + "x" * MAX_EDIT_BYTES)
    edit = {"filePath": "big.txt", "oldString": "needle", "newString": "pin"}
    outcome = await run_tool(EditTool(), edit, ctx, agent_ruleset=None)
    assert outcome.error is not None and "handle files up to 5 MB" in outcome.error
    assert (project / "big.txt").read_text().startswith("needle")


async def test_counting_stops_a_million_lines_past_the_window(
    project: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    from strata_core.tool.builtin import read

    monkeypatch.setattr(read, "COUNT_PAST_WINDOW", 10)  # the real cap is a million lines
    (project / "log.txt").write_text("".join(f"line {n}\n" for n in range(100)))
    result = await ReadTool().execute({"filePath": "log.txt", "limit": 5}, ctx)
    assert "(Showing lines 1-5 of at least 16. Use offset=6 to continue.)" in result.output
    whole = await ReadTool().execute({"filePath": "log.txt", "limit": 95}, ctx)
    assert "(Showing lines 1-95 of 100. Use offset=96 to continue.)" in whole.output
