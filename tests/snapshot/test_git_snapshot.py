"""`GitSnapshot` on real worktrees with the real `git`: what it records, what it leaves alone, what it puts back."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from strata_core.snapshot.git_snapshot import LARGE_FILE_BYTES, GitSnapshot, snapshot_dir
from strata_core.snapshot.unified_diff import whole_file_patch


def git(work: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, text=True).stdout


def repository(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    (work / "a.txt").write_text("one\ntwo\n")
    (work / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (work / "run.sh").chmod(0o755)
    return work


def snapshots(tmp_path: Path, work: Path, **env: str) -> GitSnapshot:
    return GitSnapshot(snapshot_dir(tmp_path / "data", "project", work), work, {"PATH": "/usr/bin:/bin", **env})


@pytest.mark.anyio
async def test_a_step_that_changes_nothing_keeps_its_snapshot(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = snapshots(tmp_path, work)
    first = await snap.track()
    assert first is not None
    assert await snap.track() == first
    assert (await snap.patch(first, first)).files == ()


@pytest.mark.anyio
async def test_edits_creations_and_deletions_are_the_patch_and_the_diff(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = snapshots(tmp_path, work)
    before = await snap.track()
    (work / "a.txt").write_text("one\nTWO\n")
    (work / "new.txt").write_text("fresh")
    (work / "run.sh").unlink()
    after = await snap.track()
    assert before and after
    patch = await snap.patch(before, after)
    assert patch.hash == before
    assert sorted(patch.files) == sorted(str(work / name) for name in ("a.txt", "new.txt", "run.sh"))
    diffs = {diff.file: diff for diff in await snap.diff(before, after)}
    assert [(d.file, d.status, d.additions, d.deletions) for d in diffs.values()] == [
        ("a.txt", "modified", 1, 1),
        ("new.txt", "added", 1, 0),
        ("run.sh", "deleted", 0, 2),
    ]
    assert diffs["a.txt"].patch == whole_file_patch("a.txt", "one\ntwo\n", "one\nTWO\n")
    assert diffs["new.txt"].patch.endswith("@@ -0,0 +1,1 @@\n+fresh\n\\ No newline at end of file\n")


@pytest.mark.anyio
async def test_revert_restores_bytes_and_modes_and_removes_created_files(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = snapshots(tmp_path, work)
    before = await snap.track()
    (work / "a.txt").write_bytes(b"\x00binary\xff")
    (work / "run.sh").chmod(0o644)
    (work / "made").mkdir()
    (work / "made" / "new.txt").write_text("x")
    after = await snap.track()
    assert before and after
    await snap.revert([await snap.patch(before, after)])
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    assert os.access(work / "run.sh", os.X_OK)
    assert not (work / "made" / "new.txt").exists()
    await snap.restore(after, [str(work / "a.txt"), str(work / "made" / "new.txt")])
    assert (work / "a.txt").read_bytes() == b"\x00binary\xff"
    assert (work / "made" / "new.txt").read_text() == "x"


@pytest.mark.anyio
async def test_a_binary_file_is_counted_without_a_patch(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = snapshots(tmp_path, work)
    before = await snap.track()
    (work / "blob.bin").write_bytes(bytes(range(256)))
    after = await snap.track()
    assert before and after
    (diff,) = await snap.diff(before, after)
    assert (diff.file, diff.patch, diff.additions, diff.deletions, diff.status) == ("blob.bin", "", 0, 0, "added")


@pytest.mark.anyio
async def test_ignored_and_large_files_stay_out(tmp_path: Path) -> None:
    work = repository(tmp_path)
    (work / ".gitignore").write_text("build/\n")
    (work / ".git" / "info" / "exclude").write_text("secret.txt\n")
    snap = snapshots(tmp_path, work)
    before = await snap.track()
    (work / "build").mkdir()
    (work / "build" / "out.o").write_text("object")
    (work / "secret.txt").write_text("hidden")
    (work / "huge.dat").write_bytes(b"x" * (LARGE_FILE_BYTES + 1))
    (work / "kept.txt").write_text("kept")
    after = await snap.track()
    assert before and after
    assert (await snap.patch(before, after)).files == (str(work / "kept.txt"),)


@pytest.mark.anyio
async def test_the_users_repository_is_never_touched(tmp_path: Path) -> None:
    work = repository(tmp_path)
    git(work, "add", "a.txt")
    hook = work / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path / 'hook-ran'}\n")
    hook.chmod(0o755)
    index = (work / ".git" / "index").read_bytes()
    config = (work / ".git" / "config").read_text()
    # A caller's GIT_* variables must not redirect the snapshots into the user's repository.
    env = {"GIT_DIR": str(work / ".git"), "GIT_INDEX_FILE": str(work / ".git" / "index")}
    snap = snapshots(tmp_path, work, **env)
    before = await snap.track()
    (work / "a.txt").write_text("changed\n")
    after = await snap.track()
    assert before and after
    await snap.revert([await snap.patch(before, after)])
    assert (work / ".git" / "index").read_bytes() == index
    assert (work / ".git" / "config").read_text() == config
    assert git(work, "status", "--porcelain") == "A  a.txt\n?? run.sh\n"
    assert not (tmp_path / "hook-ran").exists()
    assert (snap.gitdir / "HEAD").is_file() and not str(snap.gitdir).startswith(str(work))


@pytest.mark.anyio
async def test_a_directory_that_is_not_a_repository_is_tracked_too(tmp_path: Path) -> None:
    work = tmp_path / "plain"
    work.mkdir()
    (work / "notes.md").write_text("# notes\n")
    snap = snapshots(tmp_path, work)
    before = await snap.track()
    (work / "notes.md").write_text("# notes\nmore\n")
    after = await snap.track()
    assert before and after and before != after
    assert not (work / ".git").exists()


@pytest.mark.anyio
async def test_concurrent_snapshots_of_one_worktree_do_not_collide(tmp_path: Path) -> None:
    work = repository(tmp_path)
    first, second = snapshots(tmp_path, work), snapshots(tmp_path, work)
    hashes: list[str | None] = []

    async def track(snap: GitSnapshot, name: str) -> None:
        (work / name).write_text(name)
        hashes.append(await snap.track())

    async with anyio.create_task_group() as group:
        for index in range(6):
            group.start_soon(track, first if index % 2 else second, f"file{index}.txt")
    assert None not in hashes
    final = await first.track()
    assert final is not None
    listed = git(work, "--git-dir", str(first.gitdir), "ls-tree", "-r", "--name-only", final)
    assert all(f"file{index}.txt" in listed for index in range(6))


@pytest.mark.anyio
async def test_a_missing_git_makes_track_answer_none(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = GitSnapshot(tmp_path / "snap", work, {}, git=str(tmp_path / "no-such-git"))
    assert await snap.track() is None


@pytest.mark.anyio
async def test_prune_runs_at_most_hourly(tmp_path: Path) -> None:
    work = repository(tmp_path)
    snap = snapshots(tmp_path, work)
    await snap.track()
    await snap.prune_if_due()
    stamp = snap.gitdir / "strata-pruned"
    assert stamp.is_file()
    first = stamp.stat().st_mtime
    await snap.prune_if_due()
    assert stamp.stat().st_mtime == first
