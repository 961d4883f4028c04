"""What a step's snapshots cost on a large worktree, and the git CLI against dulwich for the same work.

    uv run python -m benchmarks --only snapshots
    uv run python -m benchmarks.snapshots --quick            # prints its rows as JSON lines

A repository of 10,000 committed files (1 KiB each, in 100 directories) is snapshotted by `GitSnapshot` as a
turn does it. The cases (issue 24):
- `unchanged step`: the two snapshots of a step (start and finish) when nothing changed, after a first
  snapshot has filled the index: what the first step of a turn takes;
- `added to an unchanged step`: one snapshot, the finish one. It is all a step waits for: a later step of a
  turn starts from the previous step's finish, and a turn's first step takes its start snapshot while the
  model request is out;
- `edited step`: one file edited between the two, plus the `patch` that names it;
- `first snapshot`: the first snapshot of the tree (every file hashed once; paid once per worktree);
- `run "say hello"`, with snapshots and with `"snapshot": false`, alternating, each run in a fresh HOME and
  project (so each also creates the snapshot directory): what snapshots add to the shortest whole run;
- `dulwich unchanged`: the same unchanged snapshot (stage what changed, write the tree) through dulwich, in
  a child process with dulwich added by `uv run --with dulwich` (it is not a Strata dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

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


def measure_git(repo: Path, data: Path, runs: int) -> dict[str, float]:
    """Milliseconds per case, medians of `runs` (the first snapshot measured once)."""
    return dict(run_async(lambda: _git_cases(repo, data, runs)))


async def _git_cases(repo: Path, data: Path, runs: int) -> dict[str, float]:
    from strata_core.snapshot.git_snapshot import GitSnapshot, snapshot_dir

    snapshot = GitSnapshot(gitdir=snapshot_dir(data, "bench", repo), worktree=repo, env=dict(os.environ))
    target = repo / "dir042" / "file00042.txt"
    started = time.perf_counter()
    await snapshot.track()
    first = _since(started)
    unchanged, single, edited = [], [], []
    for run in range(runs):
        started = time.perf_counter()
        before, after = await snapshot.track(), await snapshot.track()
        unchanged.append(_since(started))
        assert before is not None and before == after
        started = time.perf_counter()
        assert await snapshot.track() == before
        single.append(_since(started))
        started = time.perf_counter()
        before = await snapshot.track()
        target.write_text(f"edited {run}\n")
        after = await snapshot.track()
        assert before is not None and after is not None
        patch = await snapshot.patch(before, after)
        edited.append(_since(started))
        assert patch.files == (str(target),), patch.files
    return {"first": first, "unchanged": median(unchanged), "single": median(single), "edited": median(edited)}


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


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (3 if quick else 10)
    with tempfile.TemporaryDirectory(prefix="strata-bench-snapshots-") as tmp:
        root = Path(tmp)
        repo = build_repository(root)
        git = measure_git(repo, root / "data", count)
        dulwich = measure_dulwich(repo, max(1, count // 3))
    hello = measure_hello(count)
    note = f"{FILES:,} files; two snapshots (a step's start and finish)"
    return [
        Result(
            "snapshots: unchanged step",
            "wall",
            "ms",
            git["unchanged"],
            target=at_most(UNCHANGED_TARGET_MS),
            runs=count,
            note=note,
        ),
        Result(
            "snapshots: added to an unchanged step",
            "wall",
            "ms",
            git["single"],
            runs=count,
            note="the finish snapshot only: the start one is the previous step's finish, or runs beside the request",
        ),
        Result("snapshots: one file edited", "wall", "ms", git["edited"], runs=count, note=note + " and the patch"),
        Result("snapshots: first snapshot", "wall", "ms", git["first"], runs=1, note=f"{FILES:,} files hashed once"),
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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.snapshots", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--dulwich", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dulwich is not None:
        print(json.dumps({"ms": dulwich_unchanged(args.dulwich, args.runs or 3)}))
        return
    for result in run(args.quick, args.runs):
        print(json.dumps(result.to_json()))


if __name__ == "__main__":
    main()
