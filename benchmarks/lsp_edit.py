"""What language servers add to an edit: the file tools' checks with pyright or typescript-language-server
warm, next to none configured.

    uv run python -m benchmarks --only lsp_edit
    uv run python -m benchmarks.lsp_edit --runs 12          # prints its rows as JSON lines

After edit, write and apply_patch change a file, `CodeChecks` formats it, opens it in its language servers and
waits (at most 5 s) for their diagnostics (`tool/support/code_checks.py`). The cases (issue 26), on a small
Python project whose calc.py, and a TypeScript project (the installed TypeScript 5) whose main.ts, is rewritten
before each measured check:
- `pyright warm, error edit`: the checks after an edit that introduces a type error (pyright already started
  and the project analysed by a first, unmeasured check): what the model waits for to read the error;
- `pyright warm, clean edit`: the same after an edit that leaves no error (pyright answers with no
  diagnostics);
- `clean edit after a clean one`: an edit that changes no diagnostic (a space at a line's end), after the
  clean edit;
- `typescript warm, ...`: the same three with typescript-language-server and tsserver, and the error edit again
  with 50 other files (each importing main.ts) open in the server, each of which is asked again after a change;
- `not configured`: the checks with no `lsp` key (`NoLanguageServers`): what an edit pays without servers.
A server's rows are absent where it is not installed (`.ci/run` installs both under `~/.cache/strata-lsp-tools`).

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

from attrs import frozen

from benchmarks.common import Result, median, run_async

TOOLS = Path(os.environ.get("STRATA_LSP_TOOLS", Path.home() / ".cache" / "strata-lsp-tools"))
PYRIGHT = TOOLS / "npm" / "node_modules" / ".bin" / "pyright-langserver"
TYPESCRIPT_SERVER = TOOLS / "npm" / "node_modules" / ".bin" / "typescript-language-server"
TSSERVER = TOOLS / "npm" / "node_modules" / "typescript" / "lib" / "tsserver.js"
CLEAN = "def add(a: int, b: int) -> int:\n    return a + b  # run {run}\n"
BROKEN = 'def add(a: int, b: int) -> int:\n    return "x" + a  # run {run}\n'
TS_CLEAN = "export const total: number = {run};\n"
TS_BROKEN = 'export const total: number = "{run}";\n'
OTHER_FILES = 50
"""Files importing main.ts open in the server for the last TypeScript row, as files the agent read are."""


@frozen
class EditedFile:
    """The file a case rewrites, and its text without and with a type error (`{run}` the run's number)."""

    name: str
    clean: str
    broken: str


PYTHON = EditedFile("calc.py", CLEAN, BROKEN)
TYPESCRIPT = EditedFile("main.ts", TS_CLEAN, TS_BROKEN)


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


def build_typescript_project(root: Path) -> Path:
    project = root / "ts-work"
    (project / "node_modules").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "node_modules" / "typescript").symlink_to(TSSERVER.parents[1])
    (project / "package.json").write_text(json.dumps({"name": "demo", "private": True}))
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"strict": True}}))
    (project / "main.ts").write_text(TS_CLEAN.format(run=0))
    return project


async def measure(
    project: Path, env: dict[str, str], runs: int, configured: bool, edited: EditedFile = PYTHON, opened: int = 0
) -> dict[str, float]:
    """Median milliseconds of `CodeChecks.after_edit` after each kind of edit of `edited`, with `opened` other
    files of the project (each importing it) open in its server, as files the agent read are."""
    from strata_core.config.code_tools import LspConfig
    from strata_core.lsp.service import ProjectLanguageServers
    from strata_core.tool.support.code_checks import CodeChecks

    path = project / edited.name
    timings: dict[str, list[float]] = {"error": [], "clean": [], "clean again": []}
    if not configured:
        checks = CodeChecks()
        for run in range(runs):
            for kind, text in _edits(edited):
                path.write_text(text.format(run=run))
                timings[kind].append(await _timed_check(checks, path, expect_error=False))
        return {kind: median(values) for kind, values in timings.items()}
    from strata_core.lsp.servers import configured_specs

    async with ProjectLanguageServers(configured_specs(LspConfig(True, {})), project, env) as servers:
        checks = CodeChecks(servers=servers)
        for index in range(opened):
            importer = project / f"importer{index}.ts"
            importer.write_text(f'import {{ total }} from "./main";\nexport const use{index}: number = total;\n')
            await servers.touch(importer, wait=False)
        path.write_text(edited.broken.format(run=-1))
        await _warm_up(checks, path)
        for run in range(runs):
            for kind, text in _edits(edited):
                path.write_text(text.format(run=run))
                timings[kind].append(await _timed_check(checks, path, expect_error=kind == "error"))
    return {kind: median(values) for kind, values in timings.items()}


def _edits(edited: EditedFile) -> tuple[tuple[str, str], ...]:
    """A run's three edits: into an error, out of it, and a clean edit after a clean one (whose diagnostics
    do not change: typescript-language-server pushes nothing for it)."""
    return (("error", edited.broken), ("clean", edited.clean), ("clean again", edited.clean.replace("\n", " \n")))


async def _warm_up(checks: object, path: Path) -> None:
    """Start the file's server and have it analyse the project (unmeasured), until it reports the error."""
    for _ in range(6):  # a first check may end at the 5 s wait while the server still loads the project
        try:
            await _timed_check(checks, path, expect_error=True)
            return
        except RuntimeError:
            continue
    raise RuntimeError(f"no server reported the error in {path} within six checks")


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
    ts_note = "CodeChecks.after_edit on a 1-file TypeScript project; typescript-language-server started and warm"
    with tempfile.TemporaryDirectory(prefix="strata-bench-lsp-") as tmp:
        root = Path(tmp)
        project = build_project(root)
        (root / "home").mkdir()
        env = tools_env(root / "home")
        bare = run_async(lambda: measure(project, env, count, configured=False))
        warm = run_async(lambda: measure(project, env, count, configured=True)) if PYRIGHT.exists() else None
        ts_warm = ts_open = None
        if TYPESCRIPT_SERVER.exists() and TSSERVER.exists():
            ts_project = build_typescript_project(root)
            ts_warm = run_async(lambda: measure(ts_project, env, count, configured=True, edited=TYPESCRIPT))
            ts_open = run_async(
                lambda: measure(ts_project, env, count, configured=True, edited=TYPESCRIPT, opened=OTHER_FILES)
            )
    absent = "" if warm else f"; pyright is not installed at {PYRIGHT}"
    if not ts_warm:
        ts_note += f"; typescript-language-server is not installed at {TYPESCRIPT_SERVER}"
    opened_note = ts_note + "; each open file is asked again after a change"
    cases = [
        ("pyright warm", "error edit", warm, "error", note),
        ("pyright warm", "clean edit", warm, "clean", note),
        ("typescript warm", "error edit", ts_warm, "error", ts_note),
        ("typescript warm", "clean edit", ts_warm, "clean", ts_note),
        ("pyright warm", "clean edit after a clean one", warm, "clean again", note),
        ("typescript warm", "clean edit after a clean one", ts_warm, "clean again", ts_note),
        (f"typescript warm, {OTHER_FILES} other files open", "error edit", ts_open, "error", opened_note),
    ]
    rows = [
        Result(f"lsp: edit, {case}, {edit}", "wall", "ms", figures and figures[kind], runs=count, note=text)
        for case, edit, figures, kind, text in cases
    ]
    bare_note = "no `lsp` key" + absent
    return [*rows, Result("lsp: edit, not configured", "wall", "ms", bare["error"], runs=count, note=bare_note)]


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
