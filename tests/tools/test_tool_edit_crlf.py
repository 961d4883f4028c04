"""A loose `edit` match in a CRLF file: the line endings around the replaced text stay CRLF."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.tool.builtin.edit import EditTool
from strata_core.tool.contract import ToolContext

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("lines", "old", "new", "expected"),
    [
        # line-trimmed: the model added blanks around the line
        (["one", "two", "three"], "  two  ", "TWO", ["one", "TWO", "three"]),
        # whitespace-normalised: one space where the file has two
        (["one", "a  b", "three"], "a b", "A B", ["one", "A B", "three"]),
        # indentation-flexible, over two lines, the last one the block's end
        (["x", "    a", "    b", "y"], "a\nb", "c\nd", ["x", "c", "d", "y"]),
        # block anchor: first and last lines agree, the middle is close
        (
            ["def f():", "    value = 1", "    return value", "end"],
            "def f():\n  value = 2\n  return value",
            "g",
            ["g", "end"],
        ),
    ],
    ids=["line-trimmed", "whitespace-normalized", "indentation-flexible", "block-anchor"],
)
async def test_a_fuzzy_match_keeps_the_crlf_after_the_replaced_line(
    project: Path, ctx: ToolContext, lines: list[str], old: str, new: str, expected: list[str]
) -> None:
    path = project / "crlf.txt"
    path.write_bytes("\r\n".join([*lines, ""]).encode())
    await EditTool().execute({"filePath": str(path), "oldString": old, "newString": new}, ctx)
    assert path.read_bytes() == "\r\n".join([*expected, ""]).encode()
