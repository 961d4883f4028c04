"""What an install of Strata weighs: distributions, site-packages size, the `rg` binary, and what the
prompt-only story costs (modules loaded, CPU time), for strata-core alone, with strata-providers, and with
every extra.

Each selection is installed as a user would get it: the workspace's wheels in a fresh venv outside the
workspace, their dependencies from the committed lock (`uv export --package ... --format pylock.toml`) from
uv's cache, offline. `strata-core[all]` + strata-providers holds the same distributions the base install held
before the extras (benchmarks/README.md, "A light base install", has the figures of that commit).

    uv run python -m benchmarks.base_install            # --runs N, --quick
    uv run python -m benchmarks --only base_install
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import REPO_ROOT, Result, median

SELECTIONS: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str | None], ...]]] = {
    "strata-core": (("strata-core",), (("strata-core", None),)),
    "strata-core + strata-providers": (("strata-core", "strata-providers"), (("strata-providers", None),)),
    "strata-core[all] + strata-providers": (
        ("strata-core", "strata-providers"),
        (("strata-core", "all"), ("strata-providers", None)),
    ),
}
"""Name -> (the wheels installed, the (package, extra) whose locked dependencies are installed)."""

INSTALL = ("--offline", "--compile-bytecode")
"""Bytecode compiled at install, as pip does by default: the timings are not of compiling the sources."""
CLEAN_ENV = {"PATH": "/usr/bin:/bin"}
"""The timed processes' environment: nothing of the caller's (`uv run` sets PYTHONDONTWRITEBYTECODE)."""

IMPORT = (
    "import sys, time\nbefore = len(sys.modules)\nstart = time.process_time()\n"
    "from strata_core import ModelInfo, PromptContainer\n"
    "print(time.process_time() - start, len(sys.modules) - before)"
)
"""What the prompt-only story imports: the CPU time it takes inside the process (the interpreter's start-up left
out; CPU, not wall, so other work on a shared machine does not count) and how many modules it loads."""


def _run(args: Sequence[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def _install(uv: str, root: Path, wheels: dict[str, Path], selection: str) -> Path:
    names, exports = SELECTIONS[selection]
    root.mkdir(parents=True)
    _run([uv, "venv", "--python", sys.executable, root / "venv"], cwd=root)
    python = root / "venv" / "bin" / "python"
    for number, (package, extra) in enumerate(exports):
        lock = root / f"pylock.{number}.toml"
        chosen = ["--extra", extra] if extra else []
        export = ["export", "--frozen", "--no-dev", "--no-emit-workspace", "--package", package, *chosen]
        _run([uv, *export, "--format", "pylock.toml", "-o", lock], cwd=REPO_ROOT)
        _run([uv, "pip", "install", *INSTALL, "--python", python, "-r", lock], cwd=root)
    _run([uv, "pip", "install", *INSTALL, "--no-deps", "--python", python, *(wheels[n] for n in names)], cwd=root)
    return python


def _size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def _story_seconds(python: Path, work: Path) -> float:
    """The CPU time (user + system) of one run of the prompt-only example, start-up included."""
    script = work / "system_prompt_only.py"
    shutil.copy(REPO_ROOT / "examples" / "system_prompt_only.py", script)
    env = {**CLEAN_ENV, "HOME": str(work)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(python), str(script)], cwd=work, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _sizes(uv: str, python: Path, selection: str) -> list[Result]:
    venv = python.parent.parent
    (site,) = venv.glob("lib/python*/site-packages")
    count = len([line for line in _run([uv, "pip", "freeze", "--python", python], cwd=venv).splitlines() if line])
    rg = venv / "bin" / "rg"
    return [
        Result(f"install: {selection}", "distributions", "", float(count)),
        Result(f"install: {selection}", "site-packages", "MB", _size_mb(site)),
        Result(f"install: {selection}", "rg binary", "MB", _size_mb(rg) if rg.exists() else 0.0),
    ]


def _timings(pythons: dict[str, Path], runs: int) -> list[Result]:
    """The selections take turns run by run, so a busy machine slows them alike."""
    imports: dict[str, list[float]] = {selection: [] for selection in pythons}
    modules: dict[str, float] = {}
    stories: dict[str, list[float]] = {selection: [] for selection in pythons}
    for _ in range(runs):
        for selection, python in pythons.items():
            venv = python.parent.parent
            seconds, loaded = _run([python, "-c", IMPORT], cwd=venv, env={**CLEAN_ENV, "HOME": str(venv)}).split()
            imports[selection].append(float(seconds))
            modules[selection] = float(loaded)
            stories[selection].append(_story_seconds(python, Path(tempfile.mkdtemp(dir=venv.parent))))
    results = []
    for selection in pythons:
        scenario = f"install: {selection}"
        results += [
            Result(scenario, "prompt-only imports: modules", "", modules[selection]),
            Result(scenario, "prompt-only imports: CPU", "ms", median(imports[selection]) * 1000, runs=runs),
            Result(
                scenario, "prompt-only story: CPU, whole process", "ms", median(stories[selection]) * 1000, runs=runs
            ),
        ]
    return results


def run(quick: bool, runs: int | None = None) -> list[Result]:
    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("uv is not on PATH")
    count = runs or (3 if quick else 10)
    with tempfile.TemporaryDirectory(prefix="strata-install-") as tmp:
        root = Path(tmp)
        wheels = {}
        for package in ("strata-core", "strata-providers"):
            _run([uv, "build", "--package", package, "--wheel", "--out-dir", root / "dist"], cwd=REPO_ROOT)
            (wheels[package],) = (root / "dist").glob(f"{package.replace('-', '_')}-*.whl")
        pythons = {
            selection: _install(uv, root / f"venv-{n}", wheels, selection) for n, selection in enumerate(SELECTIONS)
        }
        results = [result for selection, python in pythons.items() for result in _sizes(uv, python, selection)]
        return results + _timings(pythons, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--runs", type=int)
    args = parser.parse_args()
    for result in run(args.quick, args.runs):
        print(f"{result.scenario:42} {result.metric:34} {result.strata:10.1f} {result.unit}")


if __name__ == "__main__":
    main()
