"""What a step's snapshots cost on a large worktree, and the git CLI against dulwich for the same work.

    uv run python -m benchmarks --only snapshots
    uv run python -m benchmarks.snapshots --quick            # prints its rows as JSON lines
    uv run python -m benchmarks.snapshots --runs 12 --against 8e65382   # an older GitSnapshot taking turns

A repository of 10,000 committed files (1 KiB each, in 100 directories) is snapshotted by `GitSnapshot` as a
turn does it; every snapshot case has a wall row and a CPU row (this process and its git children, the
figure to compare on a loaded machine). The cases (issue 24):
- `unchanged step`: the two snapshots of a step (start and finish) when nothing changed, after a first
  snapshot has filled the index: what the first step of a turn takes;
- `added to an unchanged step`: one snapshot, the finish one. It is all a step waits for: a later step of a
  turn starts from the previous step's finish, and a turn's first step takes its start snapshot while the
  model request is out;
- `edited step`: one file edited between the two, plus the `patch` that names it;
- `created step`: one file created between the two (a directory changed, so git walks for new files), and
  the `patch`;
- `first snapshot`: the first snapshot of the tree (every file hashed once; paid once per worktree);
- `run "say hello"`, with snapshots and with `"snapshot": false`, alternating, each run in a fresh HOME and
  project (so each also creates the snapshot directory): what snapshots add to the shortest whole run;
- `dulwich unchanged`: the same unchanged snapshot (stage what changed, write the tree) through dulwich, in
  a child process with dulwich added by `uv run --with dulwich` (it is not a Strata dependency).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import anyio

from benchmarks.common import (
    REPO_ROOT,
    Result,
    at_most,
    clean_env,
    git_commit_all,
    median,
    mock_provider_config,
    run_async,
    write_files,
)
from strata_providers.testing import ScriptedServer

FILES = 10_000
DIRECTORIES = 100
UNCHANGED_TARGET_MS = 30.0
"""Issue 24: both snapshots of an unchanged step on a 10,000-file repository within 30 ms."""


def build_repository(root: Path) -> Path:
    """A committed repository of `FILES` files under `root/repo` (built once per run)."""
    repo = root / "repo"
    for index in range(FILES):
        path = repo / f"dir{index % DIRECTORIES:03d}" / f"file{index:05d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"line {index}\n" * 80)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "files"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


Timings = dict[str, tuple[float, float]]
"""Each case's medians: (wall ms, CPU ms of this process and its git children)."""
THIS_TREE = "this tree"


def measure_git(repo: Path, data: Path, runs: int, against: str | None = None) -> dict[str, Timings]:
    """The cases by tree: this tree's `GitSnapshot`, and `against`'s (a git revision of this repository)
    taking turns with it run by run, each on its own copy of the repository."""
    return dict(run_async(lambda: _git_cases(repo, data, runs, against)))


def snapshot_class_at(revision: str, into: Path) -> type[Any]:
    """`GitSnapshot` as `revision` had it: its `git_snapshot.py` loaded as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{revision}:packages/core/src/strata_core/snapshot/git_snapshot.py"],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    ).stdout
    path = into / f"git_snapshot_{revision}.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location(f"git_snapshot_{revision}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(type[Any], module.GitSnapshot)


async def _git_cases(repo: Path, data: Path, runs: int, against: str | None) -> dict[str, Timings]:
    from strata_core.snapshot.git_snapshot import GitSnapshot, snapshot_dir

    classes: dict[str, type[Any]] = {THIS_TREE: GitSnapshot}
    if against is not None:
        classes[against] = snapshot_class_at(against, data.parent)
    snapshots = {}
    for label, snapshot_class in classes.items():
        tree = repo if label == THIS_TREE else repo.parent / f"repo-{label}"
        if not tree.exists():
            shutil.copytree(repo, tree, symlinks=True)
        snapshots[label] = snapshot_class(snapshot_dir(data, label, tree), tree, dict(os.environ))
    timings: dict[str, dict[str, list[tuple[float, float]]]] = {label: {} for label in snapshots}
    for label, snapshot in snapshots.items():
        with _timed(timings[label], "first"):
            await snapshot.track()
    for run in range(runs):
        for label, snapshot in snapshots.items():
            await _one_round(snapshot, run, timings[label])
    return {
        label: {case: (median([w for w, _ in got]), median([c for _, c in got])) for case, got in cases.items()}
        for label, cases in timings.items()
    }


async def _one_round(snapshot: Any, run: int, timings: dict[str, list[tuple[float, float]]]) -> None:
    worktree: Path = snapshot.worktree
    with _timed(timings, "unchanged"):
        before, after = await snapshot.track(), await snapshot.track()
    assert before is not None and before == after
    with _timed(timings, "single"):
        assert await snapshot.track() == before
    target = worktree / "dir042" / "file00042.txt"
    with _timed(timings, "edited"):
        before = await snapshot.track()
        target.write_text(f"edited {run}\n")
        after = await snapshot.track()
        patch = await snapshot.patch(before, after)
    assert patch.files == (str(target),), patch.files
    created = worktree / "dir007" / f"new{run}.txt"
    with _timed(timings, "created"):
        before = await snapshot.track()
        created.write_text("new\n")
        after = await snapshot.track()
        patch = await snapshot.patch(before, after)
    assert patch.files == (str(created),), patch.files
    created.unlink()
    # A turn does not start within a clock tick of the last change (a model answer lies between): without
    # this pause the snapshot that records the deletion would find its timestamp racy and keep no stat data.
    await anyio.sleep(0.02)
    await snapshot.track()


@contextmanager
def _timed(timings: dict[str, list[tuple[float, float]]], case: str) -> Iterator[None]:
    started, cpu = time.perf_counter(), _cpu_seconds()
    yield
    timings.setdefault(case, []).append((_since(started), (_cpu_seconds() - cpu) * 1000))


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure_hello(runs: int) -> dict[bool, float]:
    """Median wall milliseconds of `strata run "say hello"` with snapshots on (True) and off (False)."""
    strata = str(REPO_ROOT / ".venv" / "bin" / "strata")
    walls: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(runs):
        for enabled in (True, False):
            with tempfile.TemporaryDirectory(prefix="strata-bench-hello-") as tmp:
                work, home = Path(tmp) / "work", Path(tmp) / "home"
                home.mkdir()
                with ScriptedServer([{"text": "Hello!"}]) as server:
                    extra = {} if enabled else {"snapshot": False}
                    config = mock_provider_config(server.port, extra=extra)
                    write_files(work, {"AGENTS.md": "# Rules\n", "opencode.json": config})
                    git_commit_all(work)
                    started = time.perf_counter()
                    subprocess.run(
                        [strata, "run", "say hello"],
                        cwd=work,
                        env=clean_env(home),
                        check=True,
                        capture_output=True,
                        timeout=60,
                    )
                    walls[enabled].append(_since(started))
    return {enabled: median(values) for enabled, values in walls.items()}


def measure_dulwich(repo: Path, runs: int) -> float | None:
    """The unchanged snapshot through dulwich, in a child process that has it; None where uv cannot add it."""
    copy = repo.parent / "repo-dulwich"
    if not copy.exists():
        shutil.copytree(repo, copy, symlinks=True)
    argv = ["uv", "run", "--quiet", "--with", "dulwich", "python", "-m", "benchmarks.snapshots"]
    argv += ["--dulwich", str(copy), "--runs", str(runs)]
    done = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        print(f"dulwich case skipped: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return float(json.loads(done.stdout.strip().splitlines()[-1])["ms"])


def dulwich_unchanged(repo: Path, runs: int) -> float:
    """Stage what changed and write the tree, as `GitSnapshot.track` does, through dulwich's own code."""
    # Not a dependency: the child process has it by `uv run --with dulwich`, so mypy has no stubs for it.
    from dulwich import porcelain  # type: ignore[import-not-found]
    from dulwich.repo import Repo  # type: ignore[import-not-found]

    opened = Repo(str(repo))

    def track() -> bytes:
        porcelain.add(opened)  # the untracked and modified files, found by hashing what stat cannot settle
        return bytes(opened.open_index().commit(opened.object_store))

    track()
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        assert track() == track()
        timings.append(_since(started))
    return median(timings)


def run(quick: bool, runs: int | None = None, against: str | None = None) -> list[Result]:
    count = runs or (3 if quick else 10)
    with tempfile.TemporaryDirectory(prefix="strata-bench-snapshots-") as tmp:
        root = Path(tmp)
        repo = build_repository(root)
        git = measure_git(repo, root / "data", count, against)
        dulwich = measure_dulwich(repo, max(1, count // 3))
    hello = measure_hello(count)
    rows = [row for label, timings in git.items() for row in _git_rows(label, timings, count)]
    return [
        *rows,
        Result('snapshots: run "say hello", snapshots on', "wall", "ms", hello[True], runs=count, note="fresh HOME"),
        Result('snapshots: run "say hello", snapshot: false', "wall", "ms", hello[False], runs=count, note="A/B"),
        Result(
            "snapshots: unchanged step, dulwich",
            "wall",
            "ms",
            dulwich,
            runs=max(1, count // 3),
            note="same work through dulwich (porcelain.add, index commit); absent where uv cannot add it",
        ),
    ]


def _git_rows(label: str, timings: Timings, runs: int) -> list[Result]:
    """A tree's rows, wall and CPU; the target is judged on this tree's wall time only."""
    suffix = "" if label == THIS_TREE else f" (at {label})"
    note = f"{FILES:,} files; two snapshots (a step's start and finish)"
    cases = [
        ("unchanged step", "unchanged", note),
        (
            "added to an unchanged step",
            "single",
            "the finish snapshot only: the start one is the previous step's finish, or runs beside the request",
        ),
        ("one file edited", "edited", note + " and the patch"),
        ("one file created", "created", note + " and the patch"),
    ]
    rows = []
    for title, case, text in cases:
        wall, cpu = timings[case]
        target = at_most(UNCHANGED_TARGET_MS) if case == "unchanged" and label == THIS_TREE else None
        rows.append(Result(f"snapshots: {title}{suffix}", "wall", "ms", wall, target=target, runs=runs, note=text))
        rows.append(Result(f"snapshots: {title}{suffix}", "cpu", "ms", cpu, runs=runs, note="this process and git"))
    first = timings["first"][0]
    rows.append(Result(f"snapshots: first snapshot{suffix}", "wall", "ms", first, runs=1, note=f"{FILES:,} files"))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.snapshots", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--against", default=None, help="a git revision whose GitSnapshot takes turns with this one")
    parser.add_argument("--dulwich", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dulwich is not None:
        print(json.dumps({"ms": dulwich_unchanged(args.dulwich, args.runs or 3)}))
        return
    for result in run(args.quick, args.runs, args.against):
        print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
