"""A snapshot that skipped git's walk for new files (`untracked_cache`) still sees every kind of change.

Each test first proves the skip is in effect (the snapshot after an unchanged one ran `ls-files` without
`--others`, seen through a `git` wrapper that logs its arguments), then changes the worktree and checks that
the next snapshot records the change. The file system's clock must tick past the tree's creation before the
first snapshot, or the stat data is racy and nothing is cached: `settle` waits for that.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from strata_core.snapshot.git_snapshot import LARGE_FILE_BYTES, GitSnapshot, snapshot_dir


def git_wrapper(tmp_path: Path) -> tuple[str, Path]:
    """A `git` that logs each call's arguments (one line per call) and runs the real one."""
    real = shutil.which("git")
    assert real is not None
    log = tmp_path / "git-calls.log"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nprintf "%s " "$@" >> {log}\necho >> {log}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper), log


def settle(probe: Path, paths: list[Path]) -> None:
    """Wait until the file system's clock (`probe` touched) is past every path's ctime, so that their stat
    data is not racy; `probe` is outside the worktree, on the same file system."""
    newest = max(path.lstat().st_ctime_ns for path in paths)
    while True:
        probe.touch()
        if probe.stat().st_mtime_ns > newest:
            probe.unlink()
            return
        time.sleep(0.002)


class Worktree:
    def __init__(self, tmp_path: Path) -> None:
        self.work = tmp_path / "work"
        (self.work / "src").mkdir(parents=True)
        (self.work / "empty").mkdir()
        (self.work / "src" / "a.txt").write_text("alpha\n")
        (self.work / "b.txt").write_text("bravo\n")
        (self.work / ".gitignore").write_text("build/\n*.log\n")
        (self.work / "build").mkdir()
        (self.work / "build" / "out.o").write_text("object")
        subprocess.run(["git", "init", "-q", str(self.work)], check=True)
        git, self.log = git_wrapper(tmp_path)
        data = tmp_path / "data"
        self.snap = GitSnapshot(snapshot_dir(data, "p", self.work), self.work, {"PATH": "/usr/bin:/bin"}, git=git)

    async def cached(self) -> str:
        """A snapshot of the unchanged tree, proven to have skipped the walk for new files."""
        settle(self.work.parent / "clock-probe", [self.work, *self.work.rglob("*")])
        first = await self.snap.track()
        assert first is not None
        assert await self.snap.track() == first  # a snapshot's first full scan keeps no stat data; this one does
        self.log.write_text("")
        again = await self.snap.track()
        calls = [line for line in self.log.read_text().splitlines() if " ls-files " in f" {line}"]
        assert calls and all("--others" not in call for call in calls), calls
        assert again == first
        return first

    async def changed(self, before: str) -> list[str]:
        """The files the next snapshot records as changed since `before`, relative to the worktree."""
        after = await self.snap.track()
        assert after is not None
        patch = await self.snap.patch(before, after)
        return sorted(str(Path(name).relative_to(self.work)) for name in patch.files)


def same_times(path: Path, times: os.stat_result) -> None:
    """Put `path`'s mtime back as it was: only its ctime then tells it changed (the racy case)."""
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns), follow_symlinks=False)


@pytest.mark.anyio
async def test_an_edit_that_keeps_the_size_and_the_mtime_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    target = tree.work / "src" / "a.txt"
    before = await tree.cached()
    times = target.stat()
    target.write_text("ALPHA\n")
    same_times(target, times)
    assert await tree.changed(before) == ["src/a.txt"]


@pytest.mark.anyio
async def test_a_new_file_in_a_directory_whose_mtime_is_put_back_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    times = (tree.work / "src").stat()
    (tree.work / "src" / "new.txt").write_text("new\n")
    same_times(tree.work / "src", times)
    assert await tree.changed(before) == ["src/new.txt"]


def write(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(path.name)


CHANGES: dict[str, tuple[Callable[[Path], object], list[str]]] = {
    "new file in an existing directory": (lambda w: (w / "src" / "c.txt").write_text("c"), ["src/c.txt"]),
    "new file in an empty directory": (lambda w: (w / "empty" / "x.txt").write_text("x"), ["empty/x.txt"]),
    "new directory": (lambda w: write(w / "src" / "deep" / "d.txt"), ["src/deep/d.txt"]),
    "deleted file": (lambda w: (w / "src" / "a.txt").unlink(), ["src/a.txt"]),
    "rename": (lambda w: (w / "src" / "a.txt").rename(w / "src" / "z.txt"), ["src/a.txt", "src/z.txt"]),
    "rename into another directory": (lambda w: (w / "b.txt").rename(w / "empty" / "b.txt"), ["b.txt", "empty/b.txt"]),
    "chmod +x": (lambda w: (w / "b.txt").chmod(0o755), ["b.txt"]),
    "another process": (
        lambda w: subprocess.run([sys.executable, "-c", "open('src/p.txt', 'w').write('p')"], cwd=w, check=True),
        ["src/p.txt"],
    ),
}


@pytest.mark.anyio
@pytest.mark.parametrize("case", sorted(CHANGES))
async def test_every_kind_of_change_is_seen_after_an_unchanged_snapshot(tmp_path: Path, case: str) -> None:
    tree = Worktree(tmp_path)
    change, expected = CHANGES[case]
    before = await tree.cached()
    change(tree.work)
    assert await tree.changed(before) == expected


@pytest.mark.anyio
async def test_a_gitignore_edit_that_unignores_a_directory_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    (tree.work / ".gitignore").write_text("*.log\n")
    assert await tree.changed(before) == [".gitignore", "build/out.o"]


@pytest.mark.anyio
async def test_an_ignore_file_that_ignores_itself_still_counts_when_edited(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    (tree.work / ".gitignore").write_text(".gitignore\nbuild/\n")
    before = await tree.cached()
    (tree.work / ".gitignore").write_text(".gitignore\n")
    assert await tree.changed(before) == ["build/out.o"]


@pytest.mark.anyio
async def test_a_file_that_becomes_ignored_is_not_added_and_a_tracked_one_stays(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    (tree.work / "src" / ".gitignore").write_text("later.txt\na.txt\n")
    (tree.work / "src" / "later.txt").write_text("later")
    (tree.work / "src" / "a.txt").write_text("still recorded\n")
    assert await tree.changed(before) == ["src/.gitignore", "src/a.txt"]


@pytest.mark.anyio
async def test_an_edit_of_the_repositorys_exclude_file_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    (tree.work / "notes.tmp").write_text("notes")
    (tree.work / ".git" / "info" / "exclude").write_text("*.tmp\n")
    before = await tree.cached()
    (tree.work / ".git" / "info" / "exclude").write_text("")
    assert await tree.changed(before) == ["notes.tmp"]


@pytest.mark.anyio
async def test_a_global_excludes_file_edit_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_text("*.bak\n")
    (tree.work / "old.bak").write_text("old")
    tree.snap = GitSnapshot(
        tree.snap.gitdir, tree.work, {"PATH": "/usr/bin:/bin", "HOME": str(home)}, git=tree.snap.git
    )
    before = await tree.cached()
    (home / ".config" / "git" / "ignore").write_text("")
    assert await tree.changed(before) == ["old.bak"]


@pytest.mark.anyio
async def test_a_large_file_that_shrinks_is_added(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    big = tree.work / "src" / "big.dat"
    big.write_bytes(b"x" * (LARGE_FILE_BYTES + 1))
    before = await tree.cached()
    times = big.stat()
    with big.open("r+b") as handle:
        handle.truncate(10)
    same_times(big, times)
    assert await tree.changed(before) == ["src/big.dat"]


@pytest.mark.anyio
async def test_racy_stat_data_is_not_cached(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    future = time.time_ns() + 3600 * 10**9  # a directory stamped after the snapshot's clock reading
    os.utime(tree.work / "src", ns=(future, future))
    settle(tmp_path / "clock-probe", [tree.work, *tree.work.rglob("*")])
    await tree.snap.track()
    await tree.snap.track()
    tree.log.write_text("")
    await tree.snap.track()
    assert "--others" in tree.log.read_text()


@pytest.mark.anyio
async def test_a_walk_without_new_directories_reuses_what_git_ignored_and_still_sees_a_later_rule_edit(
    tmp_path: Path,
) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    (tree.work / "src" / "c.txt").write_text("c")
    tree.log.write_text("")
    assert await tree.changed(before) == ["src/c.txt"]
    assert "--others" in tree.log.read_text() and "--ignored" not in tree.log.read_text()
    before = await tree.cached()
    (tree.work / ".gitignore").write_text("*.log\n")
    assert await tree.changed(before) == [".gitignore", "build/out.o"]


@pytest.mark.anyio
async def test_a_new_ignored_directory_is_asked_of_git_and_not_walked(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    write(tree.work / "run.log" / "first.txt")
    tree.log.write_text("")
    after = await tree.snap.track()
    assert after == before and "--ignored" in tree.log.read_text()
    again = await tree.cached()
    write(tree.work / "run.log" / "second.txt")
    tree.log.write_text("")
    assert await tree.snap.track() == again
    assert "--others" not in tree.log.read_text()


@pytest.mark.anyio
async def test_a_directory_unignored_by_a_rule_edit_is_walked_from_then_on(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    before = await tree.cached()
    (tree.work / ".gitignore").write_text("*.log\n")
    settle(tmp_path / "clock-probe", [tree.work / ".gitignore"])  # so the snapshot after the edit keeps its walk
    assert await tree.changed(before) == [".gitignore", "build/out.o"]
    before = await tree.cached()
    (tree.work / "build" / "later.o").write_text("later")
    assert await tree.changed(before) == ["build/later.o"]


@pytest.mark.anyio
async def test_an_edit_of_an_excludes_file_reached_through_a_link_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    home, dotfiles = tmp_path / "home", tmp_path / "dotfiles"
    (home / ".config" / "git").mkdir(parents=True)
    dotfiles.mkdir()
    (dotfiles / "ignore").write_text("*.bak\n")
    (home / ".config" / "git" / "ignore").symlink_to(dotfiles / "ignore")
    (tree.work / "old.bak").write_text("old")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    tree.snap = GitSnapshot(tree.snap.gitdir, tree.work, env, git=tree.snap.git)
    settle(tmp_path / "clock-probe", [dotfiles / "ignore", dotfiles])
    before = await tree.cached()
    (dotfiles / "ignore").write_text("*.bax\n")
    assert await tree.changed(before) == ["old.bak"]


@pytest.mark.anyio
async def test_the_first_snapshot_runs_no_git_process_for_the_cache(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    settle(tmp_path / "clock-probe", [tree.work, *tree.work.rglob("*")])
    await tree.snap.track()
    calls = tree.log.read_text().splitlines()
    assert calls and not any("--ignored" in call or "--show-origin" in call for call in calls), calls


@pytest.mark.anyio
async def test_after_the_warm_up_the_first_snapshot_skips_the_walk_and_still_sees_a_change(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    settle(tmp_path / "clock-probe", [tree.work, *tree.work.rglob("*")])
    await tree.snap.warm_up()
    tree.log.write_text("")
    first = await tree.snap.track()
    calls = tree.log.read_text().splitlines()
    assert len(calls) == 1 and " ls-files " in f" {calls[0]}" and "--others" not in calls[0], calls
    (tree.work / "src" / "new.txt").write_text("new")
    assert first is not None and await tree.changed(first) == ["src/new.txt"]


@pytest.mark.anyio
async def test_a_rule_edit_above_the_sessions_directory_is_seen(tmp_path: Path) -> None:
    tree = Worktree(tmp_path)
    (tree.work / "src" / "trace.log").write_text("trace")
    env = {"PATH": "/usr/bin:/bin"}
    tree.snap = GitSnapshot(tree.snap.gitdir, tree.work, env, git=tree.snap.git, scope="src")
    before = await tree.cached()
    (tree.work / ".gitignore").write_text("build/\n")
    assert await tree.changed(before) == ["src/trace.log"]
