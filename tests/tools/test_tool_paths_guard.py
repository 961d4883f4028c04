"""Paths outside the project need `external_directory`, judged after `..` and symlinks are resolved."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import Asker, MakeContext, rules

from strata_core.permission.rules import DeniedError
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.support.confined_file import patterns, resolve
from strata_core.tool.support.paths_guard import absolute, inside_project

pytestmark = pytest.mark.anyio


async def read(ctx: ToolContext, raw: str) -> None:
    await ReadTool().execute({"filePath": raw}, ctx)


def external_patterns(asker: Asker) -> list[list[str]]:
    return [ask.patterns for ask in asker.of("external_directory")]


async def test_a_file_inside_the_project_needs_no_external_permission(
    project: Path, ctx: ToolContext, asker: Asker
) -> None:
    (project / "a.txt").write_text("x")
    await read(ctx, "a.txt")
    assert external_patterns(asker) == []


async def test_dot_dot_out_of_the_project_asks_for_the_real_directory(
    project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "secret.txt").write_text("x")
    await read(ctx, "../elsewhere/secret.txt")
    assert external_patterns(asker) == [[f"{outside}/*"]]
    (ask,) = asker.of("external_directory")
    assert ask.always == [f"{outside}/*"]
    assert ask.metadata == {"filepath": f"{outside}/secret.txt", "parentDir": str(outside)}


async def test_dot_dot_hidden_inside_a_path_is_folded_first(
    project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (project / "a").mkdir()
    (outside / "secret.txt").write_text("x")
    await read(ctx, str(project / "a" / ".." / ".." / "elsewhere" / "secret.txt"))
    assert external_patterns(asker) == [[f"{outside}/*"]]


async def test_an_absolute_path_outside_asks(outside: Path, ctx: ToolContext, asker: Asker) -> None:
    (outside / "secret.txt").write_text("x")
    await read(ctx, str(outside / "secret.txt"))
    assert external_patterns(asker) == [[f"{outside}/*"]]


async def test_a_symlink_inside_the_project_pointing_out_is_outside(
    project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "secret.txt").write_text("x")
    (project / "innocent.txt").symlink_to(outside / "secret.txt")
    await read(ctx, "innocent.txt")
    assert external_patterns(asker) == [[f"{outside}/*"]]


async def test_a_symlinked_directory_pointing_out_is_outside(
    project: Path, outside: Path, ctx: ToolContext, asker: Asker
) -> None:
    (outside / "secret.txt").write_text("x")
    (project / "vendor").symlink_to(outside)
    await read(ctx, "vendor/secret.txt")
    assert external_patterns(asker) == [[f"{outside}/*"]]
    asker.calls.clear()
    await read(ctx, "vendor")  # the directory itself
    assert external_patterns(asker) == [[f"{outside}/*"]]


async def test_a_denied_external_directory_stops_the_read(outside: Path, ctx: ToolContext, asker: Asker) -> None:
    (outside / "secret.txt").write_text("x")
    asker.rules = rules({"*": "allow", "external_directory": "deny"})
    with pytest.raises(DeniedError):
        await read(ctx, str(outside / "secret.txt"))
    assert asker.of("read") == []


async def test_the_worktree_counts_as_inside_even_from_a_subdirectory(
    project: Path, make_ctx: MakeContext, asker: Asker
) -> None:
    (project / "sub").mkdir()
    (project / "top.txt").write_text("x")
    ctx = make_ctx(directory=project / "sub")
    await read(ctx, "../top.txt")
    assert external_patterns(asker) == []


def test_outside_git_only_the_directory_counts(project: Path, outside: Path) -> None:
    root = Path("/")
    assert inside_project(project / "x", project, root)
    assert not inside_project(outside / "x", project, root)


def test_absolute_expands_home_and_folds_dots(tmp_path: Path) -> None:
    assert absolute("a/../b", tmp_path) == tmp_path / "b"
    assert absolute("~/x", tmp_path) == Path.home() / "x"
    assert absolute("/etc/passwd", tmp_path) == Path("/etc/passwd")


def test_permission_patterns_are_relative_to_the_worktree(project: Path, ctx: ToolContext) -> None:
    assert patterns(ctx, resolve(ctx, project / "src" / "a.py")) == ["src/a.py"]
    assert patterns(ctx, resolve(ctx, project.parent / "x")) == ["../x"]
