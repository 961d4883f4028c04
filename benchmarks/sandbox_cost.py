"""The cost of containing a shell command: `true` run as a bash call, by mechanism and by mode.

Rows (median wall time per call, in-process):
- process only (the tool's process runner, `run_shell`, on a ready argv): `bash -c true` bare, as main ran
  it; under the reaper (a `python -I -S` child subreaper that ends what the command left); inside bwrap with
  the workspace-write layout (mount, PID, network namespaces);
- tool call (`BashTool.execute`, as the engine calls it: parsing, permission, the sandbox's preparation with
  its search for `.env` files, the process): in danger-full-access (the reaper), workspace-write and
  read-only, in a project of `--files` files.
The bwrap rows say `absent` where bwrap cannot run here. What containment adds to a call is the
workspace-write tool row minus the bare process row and the tool's own parsing (the danger-full-access
tool row minus the reaper process row).

    uv run python -m benchmarks.sandbox_cost [--runs 30] [--files 2000]
    uv run python -m benchmarks --only sandbox_cost
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import anyio

from benchmarks.common import Result, median
from strata_core.config.paths import StrataPaths
from strata_core.config.schema import SandboxConfig, SandboxMode
from strata_core.llm import ModelInfo
from strata_core.sandbox.bubblewrap import probe
from strata_core.sandbox.reaper import reaped_argv
from strata_core.tool.builtin.bash import BashTool, default_shell
from strata_core.tool.contract import ToolContext
from strata_core.tool.support.shell_process import OutputCollector, run_shell
from strata_core.tool.truncation import Truncation

SCENARIO = "bash call `true`"
MODES: tuple[SandboxMode, ...] = ("danger-full-access", "workspace-write", "read-only")


def build_project(root: Path, files: int) -> Path:
    """A git project of `files` small files in 20 dirs, with two `.env` files to hide."""
    project = root / "project"
    for index in range(files):
        path = project / f"pkg{index % 20}" / f"module{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    (project / ".env").write_text("KEY=1\n")
    (project / "pkg3/.env.local").write_text("KEY=2\n")
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


async def _time_process(argv: list[str], project: Path, truncation: Truncation, runs: int) -> list[float]:
    times: list[float] = []
    for _ in range(runs + 2):
        collector = OutputCollector(truncation, lambda _: None)
        started = time.perf_counter()
        await run_shell(argv, cwd=project, env={"PATH": "/usr/bin:/bin"}, time_limit=30, collector=collector)
        times.append(time.perf_counter() - started)
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


def _process_rows(project: Path, paths: StrataPaths, runs: int, contained: bool) -> list[Result]:
    command = [default_shell(), "-c", "true"]
    argvs: dict[str, list[str] | None] = {"bare": command, "under the reaper": reaped_argv(command)}
    argvs["inside bwrap (workspace-write layout)"] = None
    if contained:
        sandbox = _tool("workspace-write", paths).shell_sandbox()
        prepared = sandbox.prepare(command, cwd=project, root=project)
        sandbox.finish(prepared)  # the placeholders go; the argv still binds what exists (each missing one tried)
        wrapped = list(prepared.argv)
        at = wrapped.index("--info-fd")
        argvs["inside bwrap (workspace-write layout)"] = wrapped[:at] + wrapped[at + 2 :]  # that pipe is closed
    rows: list[Result] = []
    for label, argv in argvs.items():
        metric = f"process only, {label}"
        if argv is None:
            rows.append(Result(SCENARIO, metric, "ms", None, note="bwrap cannot run here"))
            continue
        times = anyio.run(_time_process, argv, project, Truncation(paths.tool_output), runs)
        rows.append(Result(SCENARIO, metric, "ms", median(times) * 1000, runs=runs))
    return rows


def run(quick: bool, runs: int | None = None, files: int = 2000) -> list[Result]:
    runs = runs or (3 if quick else 30)
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
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for row in run(args.quick, args.runs, args.files):
        shown = "absent" if row.strata is None else f"{row.strata:.1f} {row.unit}"
        print(f"{row.scenario} | {row.metric}: {shown} {row.note}")


if __name__ == "__main__":
    main()
