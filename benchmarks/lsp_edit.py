"""What language servers add to an edit: the file tools' checks with pyright warm, next to none configured.

    uv run python -m benchmarks --only lsp_edit
    uv run python -m benchmarks.lsp_edit --runs 12          # prints its rows as JSON lines

After edit, write and apply_patch change a file, `CodeChecks` formats it, opens it in its language servers and
waits (at most 5 s) for their diagnostics (`tool/support/code_checks.py`). The cases (issue 26), on a small
Python project whose calc.py is rewritten before each measured check:
- `pyright warm, error edit`: the checks after an edit that introduces a type error (pyright already started
  and the project analysed by a first, unmeasured check): what the model waits for to read the error;
- `pyright warm, clean edit`: the same after an edit that leaves no error (pyright answers with no
  diagnostics);
- `not configured`: the checks with no `lsp` key (`NoLanguageServers`): what an edit pays without servers.
The rows are absent where pyright is not installed (`.ci/run` installs it under `~/.cache/strata-lsp-tools`).

Start-up when language servers are not configured is compared between source trees with `source_ab`
(benchmarks/README.md, "Language servers"); `tests/e2e_cli/test_e2e_cli_start_up_imports.py` pins that none of
their modules is imported then.
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

from benchmarks.common import Result, median, run_async

TOOLS = Path(os.environ.get("STRATA_LSP_TOOLS", Path.home() / ".cache" / "strata-lsp-tools"))
PYRIGHT = TOOLS / "npm" / "node_modules" / ".bin" / "pyright-langserver"
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b  # run {run}\n"
BROKEN = 'def add(a: int, b: int) -> int:\n    return "x" + a  # run {run}\n'


def tools_env(home: Path) -> dict[str, str]:
    """A PATH with the LSP tools and node (as the LSP tests have it), and an empty HOME."""
    node = shutil.which("node")
    folders = [PYRIGHT.parent, TOOLS / "py" / "bin", *([Path(node).parent] if node else [])]
    return {"HOME": str(home), "PATH": os.pathsep.join([*map(str, folders), "/usr/bin", "/bin"])}


def build_project(root: Path) -> Path:
    project = root / "work"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1.0"\n')
    (project / "calc.py").write_text(CLEAN.format(run=0))
    (project / "use.py").write_text("from calc import add\n\ntotal: int = add(1, 2)\n")
    return project


async def measure(project: Path, env: dict[str, str], runs: int, configured: bool) -> dict[str, float]:
    """Median milliseconds of `CodeChecks.after_edit` after an error edit and after a clean edit."""
    from strata_core.config.code_tools import LspConfig
    from strata_core.lsp.service import ProjectLanguageServers
    from strata_core.tool.support.code_checks import CodeChecks

    calc = project / "calc.py"
    timings: dict[str, list[float]] = {"error": [], "clean": []}
    if not configured:
        checks = CodeChecks()
        for run in range(runs):
            for kind, text in (("error", BROKEN), ("clean", CLEAN)):
                calc.write_text(text.format(run=run))
                timings[kind].append(await _timed_check(checks, calc, expect_error=False))
        return {kind: median(values) for kind, values in timings.items()}
    from strata_core.lsp.servers import configured_specs

    async with ProjectLanguageServers(configured_specs(LspConfig(True, {})), project, env) as servers:
        checks = CodeChecks(servers=servers)
        calc.write_text(BROKEN.format(run=-1))
        await _timed_check(checks, calc, expect_error=True)  # starts pyright and analyses the project
        for run in range(runs):
            for kind, text in (("error", BROKEN), ("clean", CLEAN)):
                calc.write_text(text.format(run=run))
                timings[kind].append(await _timed_check(checks, calc, expect_error=kind == "error"))
    return {kind: median(values) for kind, values in timings.items()}


async def _timed_check(checks: object, path: Path, *, expect_error: bool) -> float:
    from strata_core.tool.support.code_checks import CodeChecks

    assert isinstance(checks, CodeChecks)
    started = time.perf_counter()
    checked = await checks.after_edit(path)
    elapsed = (time.perf_counter() - started) * 1000
    found = "LSP errors detected in this file" in checked.note
    if found != expect_error:
        raise RuntimeError(f"expected {'an' if expect_error else 'no'} error in the note, got {checked.note!r}")
    return elapsed


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (3 if quick else 12)
    note = "CodeChecks.after_edit on a 2-file Python project; pyright started and warm"
    with tempfile.TemporaryDirectory(prefix="strata-bench-lsp-") as tmp:
        root = Path(tmp)
        project = build_project(root)
        (root / "home").mkdir()
        env = tools_env(root / "home")
        bare = run_async(lambda: measure(project, env, count, configured=False))
        warm = run_async(lambda: measure(project, env, count, configured=True)) if PYRIGHT.exists() else None
    absent = "" if warm else f"; pyright is not installed at {PYRIGHT}"
    return [
        Result("lsp: edit, pyright warm, error edit", "wall", "ms", warm and warm["error"], runs=count, note=note),
        Result("lsp: edit, pyright warm, clean edit", "wall", "ms", warm and warm["clean"], runs=count, note=note),
        Result("lsp: edit, not configured", "wall", "ms", bare["error"], runs=count, note="no `lsp` key" + absent),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lsp_edit", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int, default=None)
    args = parser.parse_args(argv)
    for result in run(args.quick, args.runs):
        print(json.dumps(result.to_json()))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
