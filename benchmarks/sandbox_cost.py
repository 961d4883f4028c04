"""The cost of containing a shell command: `true` run as a bash call, by mechanism and by mode.

Rows (median wall time per call, in-process):
- process only (the tool's process runner, `run_shell`, on a ready argv): `bash -c true` bare, as main ran
  it; under the reaper (a `python -I -S` child subreaper that ends what the command left); inside bwrap with
  the workspace-write layout (mount, PID, network namespaces);
- tool call (`BashTool.execute`, as the engine calls it: parsing, permission, the sandbox's preparation with
  its search for `.env` files, the process): in danger-full-access (the reaper), workspace-write and
  read-only, in a project of `--files` files.
- the walk of the project (`project_scan`), which a workspace-write bash call makes twice (before: the `.env`
  files and config to bind; after: the config a command created), on this repository's checkout (its
  virtualenv included, as CI has it) and on the generated project;
- bwrap's start with many `.env` masks (`true` inside): by the masker, and by bwrap's own binds;
- containment's own in-process work per workspace-write call, no process started: `prepare` (the walk, the
  layout with the toolchains on PATH, the memfds), `finish` and the walk after (`config_changes`), with this
  process's PATH (its version managers, if any).
The bwrap rows say `absent` where bwrap cannot run here. What containment adds to a call is the
workspace-write tool row minus the bare process row and the tool's own parsing (the danger-full-access
tool row minus the reaper process row).

    uv run python -m benchmarks.sandbox_cost [--runs 30] [--files 2000] [--masks 2000,10000,20000]
    uv run python -m benchmarks --only sandbox_cost
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import anyio

from benchmarks.common import REPO_ROOT, Result, median
from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig, SandboxMode
from strata_core.llm import ModelInfo
from strata_core.sandbox import ShellSandbox
from strata_core.sandbox.bubblewrap import probe
from strata_core.sandbox.project_scan import scan_project
from strata_core.sandbox.reaper import reaped_argv
from strata_core.tool.builtin.bash import BashTool, default_shell
from strata_core.tool.contract import ToolContext
from strata_core.tool.support.created_config import config_changes
from strata_core.tool.support.search import find_rg
from strata_core.tool.support.shell_process import OutputCollector, run_shell
from strata_core.tool.truncation import Truncation

SCENARIO = "bash call `true`"
MODES: tuple[SandboxMode, ...] = ("danger-full-access", "workspace-write", "read-only")
BWRAP_BINDS = 1_000
"""Masks bound by bwrap itself in the comparison row (its cost grows with their square: 2,000 take ~8 s)."""


def build_project(root: Path, files: int, secrets: int = 0) -> Path:
    """A git project of `files` small files in 20 dirs, with two `.env` files to hide (or `secrets`)."""
    project = root / "project"
    for index in range(files):
        path = project / f"pkg{index % 20}" / f"module{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    (project / "pkg3").mkdir(parents=True, exist_ok=True)
    (project / ".env").write_text("KEY=1\n")
    (project / "pkg3/.env.local").write_text("KEY=2\n")
    for index in range(secrets - 2):
        path = project / f"fixtures{index % 50}" / f"case{index}.env"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"KEY=3\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def _context(project: Path) -> ToolContext:
    async def allow(*_: object) -> None:
        return None

    return ToolContext(
        session_id="ses_bench",
        message_id="msg_bench",
        call_id="call_bench",
        agent="build",
        ruleset=(),
        directory=project,
        worktree=project,
        model=ModelInfo(provider_id="mock", id="mock"),
        ask=allow,
        update_metadata=lambda *_: None,
    )


async def _time_process(
    argv: list[str] | None, project: Path, truncation: Truncation, runs: int, sandbox: ShellSandbox | None = None
) -> list[float]:
    """`argv` run `runs` times (after two warm-ups); with `sandbox`, `argv` is prepared in it afresh for each
    run, outside the timing (a prepared command is used once: bwrap reads its options from a memfd)."""
    times: list[float] = []
    for _ in range(runs + 2):
        collector = OutputCollector(truncation, lambda _: None)
        prepared = sandbox.prepare(COMMAND, cwd=project, root=project) if sandbox is not None else None
        started = time.perf_counter()
        await run_shell(
            argv or list(prepared.argv if prepared else ()),
            cwd=project,
            env={"PATH": "/usr/bin:/bin"},
            time_limit=60,
            collector=collector,
            pass_fds=prepared.pass_fds if prepared else (),
        )
        times.append(time.perf_counter() - started)
        if sandbox is not None and prepared is not None:
            sandbox.finish(prepared)
    return times[2:]


def _tool(mode: SandboxMode, paths: StrataPaths) -> BashTool:
    truncation = Truncation(paths.tool_output)
    return BashTool(truncation=truncation, sandbox=SandboxConfig(mode=mode), paths=paths, settings_env={})


async def _time_calls(mode: SandboxMode, project: Path, paths: StrataPaths, runs: int) -> list[float]:
    tool = _tool(mode, paths)
    ctx = _context(project)
    times: list[float] = []
    for _ in range(runs + 2):  # two warm-up calls: the probe and the first imports are paid once per process
        started = time.perf_counter()
        result = await tool.execute({"command": "true"}, ctx)
        assert result.metadata["exit"] == 0, result.output
        times.append(time.perf_counter() - started)
    return times[2:]


COMMAND = [default_shell(), "-c", "true"]


def _process_rows(project: Path, paths: StrataPaths, runs: int, contained: bool) -> list[Result]:
    truncation = Truncation(paths.tool_output)
    rows: list[Result] = []
    for label, argv in {"bare": COMMAND, "under the reaper": reaped_argv(COMMAND)}.items():
        times = anyio.run(_time_process, argv, project, truncation, runs)
        rows.append(Result(SCENARIO, f"process only, {label}", "ms", median(times) * 1000, runs=runs))
    metric = "process only, inside bwrap (workspace-write layout)"
    if not contained:
        return [*rows, Result(SCENARIO, metric, "ms", None, note="bwrap cannot run here")]
    sandbox = _tool("workspace-write", paths).shell_sandbox()
    times = anyio.run(_time_process, None, project, truncation, runs, sandbox)
    return [*rows, Result(SCENARIO, metric, "ms", median(times) * 1000, runs=runs)]


RG_SEARCH = [
    "--files",
    "--hidden",
    "--no-ignore",
    "--no-config",
    "--null",
    "-g",
    "!.git",
    "-g",
    "*.env",
    "-g",
    "*.env.*",
]
"""The `rg` search for `.env` files that the walk replaced (it lists neither dirs nor symlinks): the yardstick."""


def _scan_rows(project: Path, files: int, runs: int) -> list[Result]:
    """The walk a bash call makes before and after its command, and the `rg` search it replaced, on this
    checkout and on the generated project."""
    rg = find_rg()
    rows: list[Result] = []
    for label, root in {
        "this repository's checkout": REPO_ROOT,
        f"the generated project ({files} files)": project,
    }.items():
        walks: list[float] = []
        searches: list[float] = []
        for _ in range(runs + 1):
            started = time.perf_counter()
            scan = scan_project(root)
            walks.append(time.perf_counter() - started)
            if rg is not None:
                started = time.perf_counter()
                subprocess.run([rg, *RG_SEARCH], cwd=root, capture_output=True, check=False)
                searches.append(time.perf_counter() - started)
        note = f"{len(scan.config)} config entries, {len(scan.secrets)} secret files found"
        rows.append(Result(SCENARIO, f"project walk, {label}", "ms", median(walks[1:]) * 1000, runs=runs, note=note))
        searched = median(searches[1:]) * 1000 if searches else None
        rows.append(Result(SCENARIO, f"rg .env search (main's), {label}", "ms", searched, runs=runs))
    return rows


def _mask_rows(root: Path, paths: StrataPaths, runs: int, masks: Sequence[int], contained: bool) -> list[Result]:
    """bwrap's start (`true` inside) with `masks` `.env` files hidden by the masker, and `BWRAP_BINDS` (or the
    smallest count, if less) bound by bwrap itself."""
    binds = min(BWRAP_BINDS, *masks)
    cases = [(count, "masker") for count in masks] + [(binds, "bwrap's own binds")]
    rows: list[Result] = []
    for count, how in cases:
        metric = f"process only, inside bwrap, {count} .env masks ({how})"
        if not contained:
            rows.append(Result(SCENARIO, metric, "ms", None, note="bwrap cannot run here"))
            continue
        project = build_project(root / f"masks-{count}-{how[0]}", 0, secrets=count)
        sandbox = _tool("workspace-write", paths).shell_sandbox()
        sandbox.masker_above = count - 1 if how == "masker" else count
        tries = runs if how == "masker" else 1
        times = anyio.run(_time_process, None, project, Truncation(paths.tool_output), tries, sandbox)
        rows.append(Result(SCENARIO, metric, "ms", median(times) * 1000, runs=tries))
    return rows


def _preparation_row(project: Path, paths: StrataPaths, runs: int, contained: bool) -> Result:
    metric = "containment's in-process work (prepare, finish, walk after), workspace-write"
    if not contained:
        return Result(SCENARIO, metric, "ms", None, note="bwrap cannot run here")
    sandbox = _tool("workspace-write", paths).shell_sandbox()
    times: list[float] = []
    for _ in range(runs + 2):
        started = time.perf_counter()
        prepared = sandbox.prepare(COMMAND, cwd=project, root=project)
        sandbox.finish(prepared)
        assert prepared.before is not None
        config_changes(prepared.before)
        times.append(time.perf_counter() - started)
    return Result(
        SCENARIO, metric, "ms", median(times[2:]) * 1000, runs=runs, note=f"{len(sandbox.toolchains())} toolchain dirs"
    )


def run(quick: bool, runs: int | None = None, files: int = 2000, masks: Sequence[int] = ()) -> list[Result]:
    runs = runs or (3 if quick else 30)
    masks = masks or ((150,) if quick else (2_000, 10_000, 20_000))
    contained = probe("bwrap") is None
    rows: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="strata-sandbox-bench-") as scratch:
        root = Path(scratch)
        project = build_project(root, files)
        paths = StrataPaths.from_env({"HOME": str(root / "home")})
        rows += _process_rows(project, paths, runs, contained)
        for mode in MODES:
            metric = f"tool call, {mode}"
            if mode != "danger-full-access" and not contained:
                rows.append(Result(SCENARIO, metric, "ms", None, note="bwrap cannot run here"))
                continue
            times = anyio.run(_time_calls, mode, project, paths, runs)
            note = f"{files} files in the project"
            rows.append(Result(SCENARIO, metric, "ms", median(times) * 1000, runs=runs, note=note))
        rows += _scan_rows(project, files, runs)
        rows.append(_preparation_row(project, paths, runs * 5, contained))
        rows += _mask_rows(root, paths, min(runs, 5), masks, contained)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--masks", default="2000,10000,20000", help="comma-separated .env mask counts")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    masks = [int(count) for count in args.masks.split(",") if count]
    for row in run(args.quick, args.runs, args.files, masks):
        shown = "absent" if row.strata is None else f"{row.strata:.1f} {row.unit}"
        print(f"{row.scenario} | {row.metric}: {shown} {row.note}")


if __name__ == "__main__":
    main()
