"""Project discovery: the worktree is the nearest directory with `.git`, else `/` and the `global` id."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from strata_core.project import ProjectService, current_platform


@pytest.mark.anyio
async def test_worktree_is_the_nearest_git_directory_above(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    deep = tmp_path / "repo" / "src" / "pkg"
    deep.mkdir(parents=True)
    info = await ProjectService(deep).info()
    assert info.directory == deep
    assert info.worktree == tmp_path / "repo"
    assert info.vcs == "git"
    assert info.id == hashlib.sha1(str(tmp_path / "repo").encode()).hexdigest()


@pytest.mark.anyio
async def test_git_file_marks_a_worktree_too(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    info = await ProjectService(tmp_path).info()
    assert info.worktree == tmp_path
    assert info.vcs == "git"


@pytest.mark.anyio
async def test_outside_git_the_worktree_is_root_and_the_id_is_global(tmp_path: Path) -> None:
    info = await ProjectService(tmp_path).info()
    assert info.worktree == Path("/")
    assert info.vcs is None
    assert info.id == "global"


@pytest.mark.anyio
async def test_same_worktree_gives_the_same_id_from_any_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a").mkdir()
    first = await ProjectService(tmp_path).info()
    second = await ProjectService(tmp_path / "a").info()
    assert first.id == second.id


@pytest.mark.anyio
async def test_info_is_discovered_once_and_cached(tmp_path: Path) -> None:
    service = ProjectService(tmp_path)
    first = await service.info()
    (tmp_path / ".git").mkdir()
    assert await service.info() is first


def test_platform_names_follow_opencode() -> None:
    assert current_platform("darwin") == "darwin"
    assert current_platform("win32") == "win32"
    assert current_platform("linux") == "linux"
    assert current_platform(sys.platform) in ("linux", "darwin", "win32")
