"""A grep pattern holding a NUL byte is refused with a message, never passed to ripgrep: no program can take
such an argument (starting rg raised `ValueError`: a 500 from `GET /find`), and no searched line holds one."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.contract import ToolContext, ToolFailure
from strata_core.tool.support.search import Search, SearchError

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[True, False], ids=["rg", "python"])
def search(request: pytest.FixtureRequest) -> Search:
    return Search(use_rg=request.param)


async def test_a_nul_in_a_grep_pattern_is_refused_by_name(search: Search, project: Path, ctx: ToolContext) -> None:
    (project / "a.txt").write_text("hi\n")
    with pytest.raises(SearchError, match="pattern holds a NUL byte"):
        await search.grep(project, "h\0i", include=None, limit=10)
    with pytest.raises(ToolFailure, match="NUL byte"):
        await GrepTool(search=search).execute({"pattern": "\0"}, ctx)
    assert [m.path for m in (await search.grep(project, "h", include=None, limit=10)).lines] == ["a.txt"]
