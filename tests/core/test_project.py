"""Project discovery: the worktree is the nearest directory with `.git`, else `/` and the `global` id; the id of
a repository is its root commit (OpenCode's), so clones of it are one project."""

from __future__ import annotations

import hashlib
import os
import subprocess
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


def _git(*args: str, cwd: Path) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _committed_repo(repo: Path) -> str:
    """`repo` made a repository with one commit; that commit's id (its root commit)."""
    repo.mkdir(parents=True, exist_ok=True)
    _git("init", "-q", cwd=repo)
    (repo / "a.txt").write_text("a\n")
    _git("add", "a.txt", cwd=repo)
    _git("commit", "-q", "-m", "first", cwd=repo)
    return _git("rev-parse", "HEAD", cwd=repo)


@pytest.mark.anyio
async def test_two_clones_of_one_repository_are_one_project_named_by_its_root_commit(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    root = _committed_repo(origin)
    (origin / "b.txt").write_text("b\n")
    _git("add", "b.txt", cwd=origin)
    _git("commit", "-q", "-m", "second", cwd=origin)
    _git("clone", "-q", str(origin), str(tmp_path / "elsewhere" / "clone"), cwd=tmp_path)

    here, there = await ProjectService(origin).info(), await ProjectService(tmp_path / "elsewhere" / "clone").info()

    assert here.id == there.id == root
    assert here.path_id == hashlib.sha1(str(origin).encode()).hexdigest() != there.path_id


@pytest.mark.anyio
async def test_a_repository_without_a_commit_is_named_by_its_path(tmp_path: Path) -> None:
    _git("init", "-q", cwd=tmp_path)
    info = await ProjectService(tmp_path).info()
    assert info.id == info.path_id == hashlib.sha1(str(tmp_path).encode()).hexdigest()


@pytest.mark.anyio
async def test_opencode_s_cached_project_id_is_used_as_it_is(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "opencode").write_text("31029f46d89df63f0d9057f7d1dfb8f1b5b74f87")
    assert (await ProjectService(tmp_path).info()).id == "31029f46d89df63f0d9057f7d1dfb8f1b5b74f87"


@pytest.mark.anyio
async def test_a_root_commit_found_once_is_kept_so_later_starts_do_not_walk_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, cache = tmp_path / "repo", tmp_path / "cache" / "project-id"
    root = _committed_repo(repo)

    first = await ProjectService(repo, id_cache=cache).info()
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # a walk now would find nothing
    again = await ProjectService(repo, id_cache=cache).info()

    assert first.id == again.id == root
    assert (cache / str(first.path_id)).read_text() == root
    assert not (repo / ".git" / "opencode").exists()  # the user's repository is left as it was


@pytest.mark.anyio
async def test_an_unwritable_id_cache_only_costs_the_walk(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    root = _committed_repo(repo)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    info = await ProjectService(repo, id_cache=blocker / "project-id").info()
    assert info.id == root
