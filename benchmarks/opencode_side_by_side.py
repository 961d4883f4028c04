"""Whole-process runs of OpenCode 1.18.33 and of `strata run`, on the same fixture, against the same server.

Two scenarios, each run in a fresh copy of the fixture (a git repository with one commit), a fresh empty
HOME, capture.sh's clean environment (PATH with ripgrep 14.1.0 first, TERM=dumb, no API keys), stdin
/dev/null, and a fresh oracle `scripted_server.py` (an instant model server: every answer is streamed at once):

- `run "say hello"`: one model call answered with a short text;
- a 20-step tool session: 20 model calls that each ask for one tool (read, glob, grep, edit, bash, mixed,
  arguments naming files in the work dir), then a closing text.

Each run is checked (exit status 0, every scripted step requested, every edit on disk) before it counts.
Wall time, user+system CPU and peak RSS come from `wait4` on the CLI process. Runs of the two CLIs are
interleaved (O S O S ...) after one untimed warm-up run of each, and the table shows medians.

Strata runs as `.venv/bin/strata`, the installed console script, not through `uv run`, so uv's own start-up
(~40 ms) is not counted; OpenCode runs as its installed binary.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    REPO_ROOT,
    ProcessSample,
    Result,
    at_most,
    clean_env,
    git_commit_all,
    measure_process,
    median,
    mock_provider_config,
    model_server,
    opencode_binary,
    oracle_available,
    ratio_at_least,
    write_files,
)

STRATA_SCRIPT = REPO_ROOT / ".venv" / "bin" / "strata"
TOOL_STEPS = 20
RUN_TIMEOUT = 180.0

HELLO_RATIO = 25
"""`run "say hello"`: at least 25x less wall time than OpenCode in the same run (issue 30; 10x before it)."""
HELLO_PEAK_RSS_MIB = 40
"""`run "say hello"`: peak RSS at most 40 MiB (issue 30; 75 MiB before it)."""
TOOL_SESSION_RATIO = 10

# ---------------------------------------------------------------------------------------------------------
# The fixture


def project_files() -> dict[str, str]:
    """A small Python project: a few modules, docs, an AGENTS.md (the model config is added per run)."""
    files = {
        "AGENTS.md": "# Project rules\n- Keep functions short.\n- Run the tests after every change.\n",
        "README.md": "# Sample project\n\nVersion 1 of a sample project used by the benchmarks.\n",
        "src/app.py": "from util import helper\n\n\ndef main():\n    helper()\n    return 1\n\n\n# TODO: add a CLI\n",
        "src/util.py": "def helper():\n    return 42\n\n\n# TODO: cache the answer\n",
        "src/models.py": 'from dataclasses import dataclass\n\n\n@dataclass\nclass Item:\n    name: str = "a"\n',
        "docs/guide.md": "# Guide\n\nRun `python src/app.py`.\n",
        "docs/notes.txt": "notes\n",
    }
    for n in range(12):
        files[f"src/pkg/mod{n:02d}.py"] = f"class Thing{n}:\n    def value(self):\n        return {n}\n"
    return files


def build_project(work: Path, port: int, extra: Mapping[str, Any] | None = None) -> None:
    """Write the fixture into `work`, point it at the model server on `port` (with `extra` settings beside it),
    and commit it."""
    write_files(work, {**project_files(), "opencode.json": mock_provider_config(port, extra=extra)})
    git_commit_all(work)


# ---------------------------------------------------------------------------------------------------------
# Scripts (the model's turns) and what a finished run must have left behind


def _tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def hello_script(work: Path) -> list[dict[str, Any]]:
    return [{"text": "Hello! How can I help you today?"}]


def tool_session_script(work: Path) -> list[dict[str, Any]]:
    """20 tool steps (5 read, 3 glob, 3 grep, 4 edit, 5 bash, interleaved) on files in `work`, then a text."""
    w = str(work)
    steps = [
        _tool("glob", pattern="**/*.py", path=w),
        _tool("read", filePath=f"{w}/src/app.py"),
        _tool("grep", pattern="def ", path=f"{w}/src"),
        _tool("bash", command="ls src", description="List source files"),
        _tool("read", filePath=f"{w}/src/util.py"),
        _tool("edit", filePath=f"{w}/src/app.py", oldString="    return 1", newString="    return 2"),
        _tool("grep", pattern="TODO", path=w, include="*.py"),
        _tool("bash", command="wc -l src/*.py", description="Count lines"),
        _tool("glob", pattern="docs/*", path=w),
        _tool("read", filePath=f"{w}/README.md"),
        _tool("edit", filePath=f"{w}/README.md", oldString="Version 1", newString="Version 2"),
        _tool("bash", command="git status --short", description="Show changed files"),
        _tool("read", filePath=f"{w}/src/models.py"),
        _tool("grep", pattern="class \\w+", path=f"{w}/src"),
        _tool("edit", filePath=f"{w}/src/models.py", oldString='name: str = "a"', newString='name: str = "b"'),
        _tool("glob", pattern="**/*.md", path=w),
        _tool("bash", command="head -3 src/app.py", description="Show the top of app.py"),
        _tool("read", filePath=f"{w}/src/app.py"),
        _tool("edit", filePath=f"{w}/src/util.py", oldString="    return 42", newString="    return 43"),
        _tool("bash", command="echo finished", description="Say finished"),
    ]
    assert len(steps) == TOOL_STEPS
    return [*steps, {"text": "All twenty steps are done."}]


def check_edits(work: Path) -> None:
    expected = {
        "src/app.py": "    return 2",
        "README.md": "Version 2",
        "src/models.py": 'name: str = "b"',
        "src/util.py": "    return 43",
    }
    missing = [name for name, text in expected.items() if text not in (work / name).read_text()]
    if missing:
        raise RunFailed(f"edits not applied to {', '.join(missing)}")


@dataclass(frozen=True)
class Scenario:
    name: str
    prompt: str
    script: Callable[[Path], list[dict[str, Any]]]
    check: Callable[[Path], None] | None = None


HELLO = Scenario('run "say hello"', "say hello", hello_script)
TOOL_SESSION = Scenario(f"{TOOL_STEPS}-step tool session", "work through the project", tool_session_script, check_edits)

# ---------------------------------------------------------------------------------------------------------
# Running one CLI once


class RunFailed(RuntimeError):
    """A run that did not do what the script asked; its timing would be meaningless."""


@dataclass(frozen=True)
class Cli:
    name: str
    argv: Callable[[str], list[str]]
    env: Mapping[str, str] | None = None


def opencode_cli() -> Cli | None:
    if os.environ.get("STRATA_BENCH_NO_OPENCODE"):
        return None
    binary = opencode_binary()
    if binary is None or not oracle_available():
        return None
    return Cli("opencode", lambda prompt: [str(binary), "run", prompt])


def strata_cli() -> Cli | None:
    if not STRATA_SCRIPT.is_file():
        return None
    return Cli("strata", lambda prompt: [str(STRATA_SCRIPT), "run", prompt])


def run_once(cli: Cli, scenario: Scenario, keep: Path | None = None) -> ProcessSample:
    """One measured run in a fresh fixture, home and server; raises RunFailed when the run went wrong."""
    base = Path(tempfile.mkdtemp(prefix=f"strata-bench-{cli.name}."))
    try:
        work, home = base / "work", base / "home"
        work.mkdir()
        home.mkdir()
        with model_server(scenario.script(work), base / "server") as server:
            build_project(work, server.port)
            sample = measure_process(
                cli.argv(scenario.prompt), cwd=work, env=clean_env(home, cli.env), timeout=RUN_TIMEOUT
            )
            expected = len(scenario.script(work))
            if sample.returncode != 0:
                raise RunFailed(f"{cli.name} exited {sample.returncode}: {sample.stderr[-2000:]}")
            if server.main_requests() < expected:
                raise RunFailed(f"{cli.name} made {server.main_requests()} model calls, expected {expected}")
            if scenario.check is not None:
                scenario.check(work)
        return sample
    finally:
        if keep is not None:
            shutil.copytree(base, keep, dirs_exist_ok=True)
        shutil.rmtree(base, ignore_errors=True)


def measure_side_by_side(
    scenario: Scenario, clis: Sequence[Cli], runs: int, warmup: bool = True
) -> dict[str, list[ProcessSample]]:
    """`runs` measured runs of each CLI, interleaved, after one untimed warm-up run of each."""
    if warmup:
        for cli in clis:
            run_once(cli, scenario)
    samples: dict[str, list[ProcessSample]] = {cli.name: [] for cli in clis}
    for _ in range(runs):
        for cli in clis:
            samples[cli.name].append(run_once(cli, scenario))
    return samples


def _median_of(samples: Sequence[ProcessSample] | None, metric: Callable[[ProcessSample], float]) -> float | None:
    return median([metric(s) for s in samples]) if samples else None


def results_for(scenario: Scenario, samples: Mapping[str, Sequence[ProcessSample]], runs: int) -> list[Result]:
    strata, opencode = samples.get("strata"), samples.get("opencode")
    rows: list[Result] = []
    metrics: list[tuple[str, str, Callable[[ProcessSample], float]]] = [
        ("wall", "s", lambda s: s.wall),
        ("CPU (user+sys)", "s", lambda s: s.cpu),
        ("peak RSS", "MiB", lambda s: s.peak_rss_mib),
    ]
    for metric, unit, pick in metrics:
        target = None
        if metric == "wall":
            target = ratio_at_least(HELLO_RATIO if scenario is HELLO else TOOL_SESSION_RATIO)
        elif metric == "peak RSS" and scenario is HELLO:
            target = at_most(HELLO_PEAK_RSS_MIB)
        rows.append(
            Result(
                scenario.name,
                metric,
                unit,
                _median_of(strata, pick),
                _median_of(opencode, pick),
                target=target,
                runs=runs,
                note="" if strata else "strata run not available",
                versus_opencode=True,
            )
        )
    return rows


def run(quick: bool, runs: int | None = None) -> list[Result]:
    count = runs or (1 if quick else 3)
    clis = [cli for cli in (opencode_cli(), strata_cli()) if cli is not None]
    results: list[Result] = []
    for scenario in (HELLO, TOOL_SESSION):
        samples = measure_side_by_side(scenario, clis, count, warmup=not quick)
        results += results_for(scenario, samples, count)
    return results


if __name__ == "__main__":
    for result in run(quick=False):
        print(json.dumps(result.to_json()))
