"""The one benchmark runner: runs every benchmark module and prints one markdown table of medians and ratios.

    uv run python -m benchmarks                      # everything, full run counts
    uv run python -m benchmarks --quick              # fewer runs, no warm-up runs
    uv run python -m benchmarks --only prompt_assembly --only stream_decode --runs 5
    uv run python -m benchmarks --update-readme      # also rewrite the Summary section of benchmarks/README.md

A module takes part by exposing `run(quick: bool) -> list[benchmarks.common.Result]` (a `runs` keyword is
passed when it accepts one); a module with only a `main()` is run as `python -m benchmarks.NAME [--quick]`
and each line of its output that is a JSON object with a `scenario` key becomes a row.

Each module runs in a fresh interpreter of its own (`--in-process` runs them in this one): a measured child's
peak RSS from `wait4` counts the resident set of the process that started it, as it was at the fork, so after
a module that grew this process (a 10,000-message history, a 200 MB file) every later child would read at
least that much.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import inspect
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import REPO_ROOT, Result, at_most, markdown_table, opencode_binary

MODULES = (
    "startup",
    "opencode_side_by_side",
    "step_overhead",
    "prompt_assembly",
    "history_conversion",
    "stream_decode",
    "huge_files",
    "bounded_memory",
    "streaming_memory",
    "hostile_model",
    "server_load",
    "multi_host",
    "sandbox_cost",
    "snapshots",
    "lsp_edit",
    "base_install",
)
README = Path(__file__).with_name("README.md")
SUMMARY_HEADING = "## Summary"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and no warm-up: a quick look")
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help=f"run only this module ({', '.join(MODULES)})"
    )
    parser.add_argument("--runs", type=int, default=None, metavar="N", help="measured runs per scenario")
    parser.add_argument("--no-opencode", action="store_true", help="skip OpenCode's runs (its columns say absent)")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="first wait (up to SECONDS) for the 1-minute load average to drop below 0.5",
    )
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the rows as JSON")
    parser.add_argument(
        "--in-process", action="store_true", help="run the modules in this process, not each in a fresh one"
    )
    parser.add_argument("--update-readme", action="store_true", help="rewrite the Summary section of the README")
    parser.add_argument(
        "--from-json", type=Path, default=None, metavar="PATH", help="report a run saved with --json instead of running"
    )
    args = parser.parse_args(argv)
    names = [name for value in args.only for name in value.split(",") if name]
    unknown = [name for name in names if name not in MODULES]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(MODULES)}")
    args.only = names
    return args


# ---------------------------------------------------------------------------------------------------------
# Running the modules


def run_module(name: str, quick: bool, runs: int | None) -> list[Result]:
    """The rows of one benchmark module; a module that is missing or fails gives one row saying so."""
    try:
        module = importlib.import_module(f"benchmarks.{name}")
    except ModuleNotFoundError as error:
        if error.name != f"benchmarks.{name}":
            return [_failed(name, error)]
        return [Result(name, "", "", None, note="module not present yet")]
    try:
        run = getattr(module, "run", None)
        if callable(run):
            kwargs: dict[str, Any] = {}
            if runs is not None and "runs" in inspect.signature(run).parameters:
                kwargs["runs"] = runs
            return [_as_result(row) for row in run(quick, **kwargs)]
        if name in ADAPTERS:
            return ADAPTERS[name](quick, runs)
        if callable(getattr(module, "main", None)):
            return run_as_subprocess(name, quick)
        return [Result(name, "", "", None, note="no run() or main() entry point")]
    except Exception as error:
        traceback.print_exc()
        return [_failed(name, error)]


def run_in_own_process(name: str, quick: bool, runs: int | None) -> list[Result]:
    """The rows of one module, run by a fresh `python -m benchmarks --in-process --only NAME` (its progress
    lines pass through; its table is not printed twice)."""
    with tempfile.TemporaryDirectory(prefix="strata-bench-module.") as folder:
        saved = Path(folder) / "rows.json"
        argv = [sys.executable, "-m", "benchmarks", "--in-process", "--only", name, "--json", str(saved)]
        argv += [*(["--quick"] if quick else []), *(["--runs", str(runs)] if runs is not None else [])]
        done = subprocess.run(argv, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, check=False)
        if done.returncode != 0 or not saved.exists():
            return [Result(name, "", "", None, note=f"failed: its process exited {done.returncode}")]
        return [Result.from_json(row) for row in json.loads(saved.read_text())["results"]]


def run_as_subprocess(name: str, quick: bool) -> list[Result]:
    argv = [sys.executable, "-m", f"benchmarks.{name}", *(["--quick"] if quick else [])]
    done = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:])} exited {done.returncode}: {done.stderr[-500:]}")
    rows: list[Result] = []
    for line in done.stdout.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        items = data if isinstance(data, list) else [data]
        rows += [Result.from_json(item) for item in items if isinstance(item, dict) and "scenario" in item]
    return rows


def history_conversion(quick: bool, runs: int | None) -> list[Result]:
    """benchmarks/history_conversion.py prints text lines; its medians become rows."""
    count = runs or (3 if quick else 9)
    argv = [sys.executable, "-m", "benchmarks.history_conversion", "--runs", str(count)]
    done = subprocess.run(argv, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    scenario = "to_model_messages, stored 10,000-message session"
    rows: list[Result] = []
    for line in done.stdout.splitlines():
        if found := re.match(r"(.+?): median ([\d.]+) ms over (\d+) runs", line):
            label, value = found[1], float(found[2])
            target = at_most(100) if not label.startswith("history frozen") else None
            cpu = re.search(r"CPU ([\d.]+) ms", line)
            note = f"CPU median {cpu[1]} ms" if cpu else ""
            rows.append(Result(scenario, f"median, {label}", "ms", value, target=target, runs=int(found[3]), note=note))
        elif found := re.search(r"loaded from SQLite in ([\d.]+) ms", line):
            rows.append(Result(scenario, "load from SQLite (not in the target)", "ms", float(found[1])))
    if not rows:
        raise RuntimeError(f"no figures in the output of {' '.join(argv[1:])}: {done.stdout[-300:]}")
    return rows


ADAPTERS: dict[str, Callable[[bool, int | None], list[Result]]] = {"history_conversion": history_conversion}
"""Modules without a `run()` whose output needs reading; a module's own `run()` wins once it has one."""


def _as_result(row: Any) -> Result:
    if isinstance(row, Result):
        return row
    if isinstance(row, dict):
        return Result.from_json(row)
    raise TypeError(f"a benchmark row must be a benchmarks.common.Result or a dict, not {type(row).__name__}")


def _failed(name: str, error: BaseException) -> Result:
    message = f"{type(error).__name__}: {error}".replace("|", "/").replace("\n", " ")
    return Result(name, "", "", None, note=f"failed: {message[:200]}")


# ---------------------------------------------------------------------------------------------------------
# The machine and the report


def machine_description() -> dict[str, str]:
    cpu = _first_field(Path("/proc/cpuinfo"), "model name") or platform.processor() or "unknown"
    memory = _first_field(Path("/proc/meminfo"), "MemTotal")
    memory_text = f"{int(memory.split()[0]) / 1024 / 1024:.1f} GiB" if memory else "unknown"
    opencode = opencode_binary()
    return {
        "date": dt.date.today().isoformat(),
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "memory": memory_text,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "load": " ".join(f"{value:.2f}" for value in os.getloadavg()),
        "opencode": f"1.18.33 ({opencode})" if opencode else "absent",
    }


def _first_field(path: Path, key: str) -> str | None:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == key:
                return value.strip()
    except OSError:
        pass
    return None


def report(results: Sequence[Result], machine: Mapping[str, str], command: str) -> str:
    notes = [f"- {r.scenario}{f' ({r.metric})' if r.metric else ''}: {r.note}" for r in results if r.note]
    lines = [
        f"Run on {machine['date']}: `{command}`",
        "",
        f"Machine: {machine['nproc']} CPUs ({machine['cpu']}), {machine['memory']} RAM, {machine['os']}, "
        f"Python {machine['python']}; OpenCode {machine['opencode']}. Load average (1, 5, 15 min) at the start "
        f"{machine.get('load', 'unknown')}, at the end {machine.get('load_end', 'unknown')}.",
        "",
        markdown_table([r for r in results if r.strata is not None or r.opencode is not None or r.target]),
    ]
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def update_readme(text: str, readme: Path = README) -> None:
    """Replace the body of `## Summary` (up to the next `## ` heading) with `text`, keeping every other section."""
    current = readme.read_text() if readme.exists() else "# Benchmarks\n"
    lines = current.splitlines()
    try:
        start = lines.index(SUMMARY_HEADING)
    except ValueError:
        lines += ["", SUMMARY_HEADING]
        start = len(lines) - 1
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    replaced = [*lines[: start + 1], "", text, "", *lines[end:]]
    readme.write_text("\n".join(replaced).rstrip("\n") + "\n")


def wait_for_quiet(seconds: float, threshold: float = 0.5) -> None:
    """Wait until nothing else keeps the CPUs busy (other benchmarks, test suites), or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while os.getloadavg()[0] >= threshold and time.monotonic() < deadline:
        time.sleep(5)


def command_line(argv: Sequence[str]) -> str:
    """The command that reproduces the run: the arguments minus where its output went."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--json", "--from-json"):
            skip = True
        elif arg != "--update-readme" and not arg.startswith(("--json=", "--from-json=")):
            kept.append(arg)
    return " ".join(["uv run python -m benchmarks", *kept])


def run_all(args: argparse.Namespace, argv: Sequence[str]) -> dict[str, Any]:
    """Run the selected modules; the saved form of a run (what --json writes and --from-json reads)."""
    # Benchmarks provoke warnings on purpose (a URL that never answers); they stay off the table because
    # this process configures no logging and Strata's libraries then log nothing (strata_core.logging).
    if args.wait_quiet:
        wait_for_quiet(args.wait_quiet)
    if args.no_opencode:
        os.environ["STRATA_BENCH_NO_OPENCODE"] = "1"
    machine = machine_description()
    results: list[Result] = []
    for name in args.only or MODULES:
        if not args.in_process:
            results += run_in_own_process(name, args.quick, args.runs)
            continue
        started = time.perf_counter()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results += run_module(name, args.quick, args.runs)
        print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    machine["load_end"] = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return {"command": command_line(argv), "machine": machine, "results": [r.to_json() for r in results]}


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(arguments)
    saved = json.loads(args.from_json.read_text()) if args.from_json else run_all(args, arguments)
    results = [Result.from_json(row) for row in saved["results"]]
    text = report(results, saved["machine"], saved["command"])
    print(text)
    if args.json is not None:
        args.json.write_text(json.dumps(saved, indent=2))
    if args.update_readme:
        update_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
