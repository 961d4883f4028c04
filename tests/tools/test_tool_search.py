"""glob and grep (reference §14.5-14.6), each run with ripgrep and with the pure-Python fallback.

The tree mirrors the oracle fixture used to record OpenCode 1.18.33's outputs: ignored, hidden and `.git`
files, files with distinct ages, and more matches than the 100 shown.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_fakes import Asker, MakeContext

from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.contract import ToolContext, ToolFailure, ToolResult
from strata_core.tool.support.search import Search, find_rg

pytestmark = pytest.mark.anyio

YEAR = 365 * 24 * 3600
BASE = 1_600_000_000


def age(path: Path, years: float) -> None:
    os.utime(path, (BASE + years * YEAR, BASE + years * YEAR))


@pytest.fixture(params=["rg", "python"])
def search(request: pytest.FixtureRequest) -> Search:
    if request.param == "rg":
        assert find_rg() is not None, "the ripgrep wheel should put rg next to the interpreter"
        return Search(use_rg=True)
    return Search(use_rg=False)


@pytest.fixture
def tree(project: Path) -> Path:
    files = {
        ".gitignore": "ign/\n*.log\n",
        "z.txt": "needle z\n",
        "m.txt": "needle m\n",
        "b.txt": "needle b\n",
        ".hidden.txt": "needle hidden\n",
        "ign/x.txt": "needle ign\n",
        "a.log": "needle log\n",
        "sub/two.txt": "needle one\nfoo\nneedle two\n",
        ".git/config": "needle git\n",
    }
    for name, text in files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    for years, name in enumerate(["z.txt", "m.txt", "b.txt", ".hidden.txt", "sub/two.txt"]):
        age(project / name, years)
    return project


def many(project: Path, count: int = 120) -> None:
    (project / "many").mkdir()
    for i in range(1, count + 1):
        (project / "many" / f"f{i}.dat").write_text(f"needle {i}\n")
        age(project / "many" / f"f{i}.dat", 10 + i / 100)


async def glob(search: Search, ctx: ToolContext, pattern: str, path: str | None = None) -> ToolResult:
    args = {"pattern": pattern} if path is None else {"pattern": pattern, "path": path}
    return await GlobTool(search=search).execute(args, ctx)


async def grep(search: Search, ctx: ToolContext, pattern: str, **extra: str) -> ToolResult:
    return await GrepTool(search=search).execute({"pattern": pattern, **extra}, ctx)


async def test_glob_lists_matches_newest_first_skipping_ignored_files(
    search: Search, tree: Path, ctx: ToolContext
) -> None:
    result = await glob(search, ctx, "*.txt")
    assert result.output.splitlines() == [
        f"{tree}/sub/two.txt",
        f"{tree}/.hidden.txt",
        f"{tree}/b.txt",
        f"{tree}/m.txt",
        f"{tree}/z.txt",
    ]
    assert result.metadata == {"count": 5, "truncated": False}
    assert result.title == "."


async def test_glob_keeps_the_newest_100_and_says_so(search: Search, tree: Path, ctx: ToolContext) -> None:
    many(tree)
    result = await glob(search, ctx, "**/*.dat")
    lines = result.output.split("\n")
    assert lines[:2] == [f"{tree}/many/f120.dat", f"{tree}/many/f119.dat"]
    assert len(lines) == 102 and lines[100] == ""
    assert lines[101] == (
        "(Results are truncated: showing first 100 results. Consider using a more specific path or pattern.)"
    )
    assert result.metadata == {"count": 100, "truncated": True}


async def test_glob_understands_braces_and_a_search_path(search: Search, tree: Path, ctx: ToolContext) -> None:
    (tree / "src").mkdir()
    for name in ("a.ts", "b.tsx", "c.js"):
        (tree / "src" / name).write_text("x")
    result = await glob(search, ctx, "*.{ts,tsx}", path="src")
    assert sorted(result.output.splitlines()) == [f"{tree}/src/a.ts", f"{tree}/src/b.tsx"]
    assert result.title == "src"


async def test_glob_without_matches_and_with_a_file_path(search: Search, tree: Path, ctx: ToolContext) -> None:
    assert (await glob(search, ctx, "*.nothing")).output == "No files found"
    with pytest.raises(ToolFailure, match=rf"^glob path must be a directory: {tree}/z.txt$"):
        await glob(search, ctx, "*", path=str(tree / "z.txt"))


async def test_glob_asks_for_its_pattern_and_for_outside_directories(
    search: Search, tree: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "o.txt").write_text("x")
    result = await glob(search, ctx, "*.txt", path=str(outside))
    assert result.output == f"{outside}/o.txt"
    assert [ask.patterns for ask in asker.of("glob")] == [["*.txt"]]
    assert [ask.patterns for ask in asker.of("external_directory")] == [[f"{outside}/*"]]


async def test_grep_groups_lines_by_file_newest_first_like_opencode(
    search: Search, tree: Path, ctx: ToolContext
) -> None:
    result = await grep(search, ctx, "needle", include="*.txt")
    assert result.output == (
        "Found 6 matches\n"
        f"{tree}/sub/two.txt:\n  Line 1: needle one\n\n  Line 3: needle two\n\n\n"
        f"{tree}/.hidden.txt:\n  Line 1: needle hidden\n\n\n"
        f"{tree}/b.txt:\n  Line 1: needle b\n\n\n"
        f"{tree}/m.txt:\n  Line 1: needle m\n\n\n"
        f"{tree}/z.txt:\n  Line 1: needle z\n"
    )
    assert result.metadata == {"matches": 6, "truncated": False}
    assert result.title == "needle"


async def test_grep_in_one_file(search: Search, tree: Path, ctx: ToolContext) -> None:
    result = await grep(search, ctx, "needle", path=str(tree / "sub" / "two.txt"))
    assert result.output == f"Found 2 matches\n{tree}/sub/two.txt:\n  Line 1: needle one\n\n  Line 3: needle two\n"


async def test_grep_without_matches(search: Search, tree: Path, ctx: ToolContext) -> None:
    result = await grep(search, ctx, "zzzzz")
    assert result.output == "No files found" and result.metadata == {"matches": 0, "truncated": False}


async def test_grep_shows_100_lines_and_says_more_exist(search: Search, tree: Path, ctx: ToolContext) -> None:
    many(tree)
    result = await grep(search, ctx, "needle")
    lines = result.output.split("\n")
    assert lines[0] == "Found 100 matches (more matches available)"
    assert lines[1] == f"{tree}/many/f120.dat:"
    assert result.output.endswith("\n\n(Results truncated. Consider using a more specific path or pattern.)")
    assert result.metadata == {"matches": 100, "truncated": True}


async def test_grep_cuts_very_long_lines(search: Search, tree: Path, ctx: ToolContext) -> None:
    (tree / "long.txt").write_text("needle" + "x" * 3000 + "\n")
    result = await grep(search, ctx, "needle", path=str(tree / "long.txt"))
    assert result.output.endswith(f"  Line 1: needle{'x' * 1994}...")


async def test_grep_reports_a_bad_pattern_and_a_missing_path(search: Search, tree: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure, match="regex parse error"):
        await grep(search, ctx, "(unclosed")
    with pytest.raises(ToolFailure, match=r"^Search path not found: nowhere$"):
        await grep(search, ctx, "x", path="nowhere")


async def test_grep_asks_for_its_pattern(search: Search, tree: Path, ctx: ToolContext, asker: Asker) -> None:
    await grep(search, ctx, "needle", include="*.txt")
    (ask,) = asker.of("grep")
    assert ask.patterns == ["needle"] and ask.metadata == {"pattern": "needle", "path": None, "include": "*.txt"}


async def test_without_rg_the_python_walk_answers_the_same(
    tree: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import strata_core.tool.support.search as search_module

    monkeypatch.setattr(search_module, "find_rg", lambda: None)
    with_rg = await glob(Search(use_rg=True), ctx, "*.txt")
    assert with_rg.output.splitlines()[-1] == f"{tree}/z.txt"
    assert f"{tree}/ign/x.txt" not in with_rg.output


async def test_outside_a_git_repository_gitignore_is_not_applied(
    search: Search, tmp_path: Path, make_ctx: MakeContext
) -> None:
    plain = (tmp_path / "plain").resolve()
    (plain / "ign").mkdir(parents=True)
    (plain / "hidden").mkdir()
    (plain / ".gitignore").write_text("ign/\n")
    (plain / ".ignore").write_text("hidden/\n")
    (plain / "ign" / "x.txt").write_text("x")
    (plain / "hidden" / "y.txt").write_text("x")
    result = await glob(search, make_ctx(directory=plain, worktree=plain), "*.txt")
    assert result.output == f"{plain}/ign/x.txt"  # rg reads .gitignore only in a repository; .ignore always


async def test_a_glob_names_files_an_ignore_file_would_hide(search: Search, tree: Path, ctx: ToolContext) -> None:
    # rg's rule: --glob overrides ignore files for the files it matches (ignored directories stay pruned).
    result = await glob(search, ctx, "*.log")
    assert result.output == f"{tree}/a.log"
    matches = await grep(search, ctx, "needle", include="*.log")
    assert matches.output.startswith(f"Found 1 matches\n{tree}/a.log:")
    assert (await glob(search, ctx, "ign/*")).output == "No files found"


async def test_an_rg_that_cannot_run_falls_back_to_python(
    tree: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import strata_core.tool.support.search as search_module

    broken = tree.parent / "rg"
    broken.write_text("not a program")  # exists but is not executable
    monkeypatch.setattr(search_module, "find_rg", lambda: str(broken))
    assert (await glob(Search(), ctx, "z.*")).output == f"{tree}/z.txt"
    assert (await grep(Search(), ctx, "needle z")).output == f"Found 1 matches\n{tree}/z.txt:\n  Line 1: needle z\n"
