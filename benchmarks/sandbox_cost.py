"""The cost of containing a shell command: one `bash` tool call of `true`, end to end, in each mode.

Rows (median wall time per call, the tool's `execute` in-process, as the engine calls it):
- bare shell: `bash -c true` with the process runner alone, no sandbox and no reaper (what main did);
- danger-full-access: the same under the reaper (a `python -I -S` subreaper that ends what the command left);
- workspace-write: inside bubblewrap (mount, PID, network namespaces; the layout built and the project
  searched for `.env` files on every call), in a project of `--files` files;
- read-only: the same, the project bound read-only.
The bubblewrap rows say `absent` where bwrap cannot run here. The cost added per call is the workspace-write
row minus the bare shell row.

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


async def _bare_shell(project: Path, truncation: Truncation) -> None:
    collector = OutputCollector(truncation, lambda _: None)
    await run_shell([default_shell(), "-c", "true"], cwd=project, env={}, time_limit=30, collector=collector)


async def _time_calls(mode: SandboxMode | None, project: Path, paths: StrataPaths, runs: int) -> list[float]:
    truncation = Truncation(paths.tool_output)
    tool = BashTool(truncation=truncation, sandbox=SandboxConfig(mode=mode), paths=paths, settings_env={})
    ctx = _context(project)
    times: list[float] = []
    for _ in range(runs + 2):  # two warm-up calls: the probe and the first imports are paid once per process
        started = time.perf_counter()
        if mode is None:
            await _bare_shell(project, truncation)
        else:
            result = await tool.execute({"command": "true"}, ctx)
            assert result.metadata["exit"] == 0, result.output
        times.append(time.perf_counter() - started)
    return times[2:]


def run(quick: bool, runs: int | None = None, files: int = 2000) -> list[Result]:
    runs = runs or (3 if quick else 30)
    contained = probe("bwrap") is None
    rows: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="strata-sandbox-bench-") as scratch:
        root = Path(scratch)
        project = build_project(root, files)
        paths = StrataPaths.from_env({"HOME": str(root / "home")})
        for mode, label in [(None, "bare shell (no sandbox, no reaper)"), *((m, m) for m in MODES)]:
            if mode in ("workspace-write", "read-only") and not contained:
                rows.append(Result(SCENARIO, f"{label}, per call", "ms", None, note="bwrap cannot run here"))
                continue
            times = anyio.run(_time_calls, mode, project, paths, runs)
            note = f"{files} files in the project" if mode in ("workspace-write", "read-only") else ""
            rows.append(Result(SCENARIO, f"{label}, per call", "ms", median(times) * 1000, runs=runs, note=note))
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
