"""`strata run --format json` prints the events `opencode run --format json` 1.18.33 prints, in its order.

`tests/oracle_fixtures/json-events/captures/opencode-CASE.jsonl` is OpenCode's stdout for the `project/`
fixture and `script-CASE.json` (how they were made: the README there). Here the installed `strata` runs the
same scripts against a ScriptedServer, and both outputs are reduced to their shape: the sequence of event
types and, per event, the names of its fields (ids, times, texts and tool outputs are each run's own).
Strata's own event types (`session`, `permission`, `retry`, `title`, `done`) are left out of the comparison.
Where OpenCode is installed, it is run again on the same scripts and compared with Strata's output as well.

The cases cover a text answer, parallel `read` + `bash`, `write` then `edit`, `glob` + `grep`, a refused
permission, a model error, and `--command` (a plain one, and one bound to a subagent, which runs as a task).
A tool's metadata is compared by its first-level keys (`diff`, `output`, `count`, `display`, ...).

What differs on purpose (`DELIBERATE`): Strata takes no git snapshots, so its `step_start` / `step_finish`
parts have no `snapshot`; its text parts always carry `synthetic` and `ignored`; its `error` carries a
top-level `message` beside OpenCode's `data.message`; `write` adds a `diff` to its metadata; and a refused
permission ends the run with an `error` event (and exit code 1) where OpenCode prints none and exits 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli
from opencode_oracle import capture_env

from strata_providers.testing import ScriptedServer

FIXTURES = Path(__file__).parents[1] / "oracle_fixtures" / "json-events"
# Read at import: the suite's conftest gives every test a fresh HOME and drops STRATA_* variables.
ORACLE = Path(os.environ.get("STRATA_ORACLE", "/work/shared/oracle"))
ORACLE_CACHE = Path(os.environ.get("STRATA_ORACLE_CACHE", Path.home() / ".cache" / "strata-oracle"))
OPENCODE = ORACLE_CACHE / "node_modules" / ".bin" / "opencode"

CASES: dict[str, tuple[str, ...]] = {
    "text": ("say hello",),
    "tools": ("read the notes and run echo",),
    "refused": ("read the .env file",),
    "model-error": ("say hello",),
    "edit": ("write and edit hello.py",),
    "search": ("find the apples",),
    "command": ("--command", "greet", "Ada"),
    "subtask": ("--command", "look", "bread"),
}
STRATA_EXIT_CODES = {case: 1 if case in ("refused", "model-error") else 0 for case in CASES}
STRATA_ONLY_TYPES = frozenset({"session", "permission", "retry", "title", "done"})
# Below these, the names are the tool's or the provider's own, not the event format's.
OPAQUE = frozenset({"part.state.input", "part.state.metadata", "error.data"})
# ...except the first level of a tool's metadata: what a consumer reads of it (`diff`, `output`, `count`, ...).
METADATA = "part.state.metadata"
# Per event type: OpenCode's fields Strata leaves out, and Strata's additions.
DELIBERATE: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "step_start": (frozenset({"part.snapshot"}), frozenset()),
    "step_finish": (frozenset({"part.snapshot"}), frozenset()),
    "text": (frozenset(), frozenset({"part.synthetic", "part.ignored"})),
    "error": (frozenset(), frozenset({"error.message"})),
}
# Per tool: metadata Strata adds (`write` carries the diff of what it wrote, for the diff Strata shows).
TOOL_ADDITIONS: dict[str, frozenset[str]] = {"write": frozenset({f"{METADATA}.diff"})}

Shape = tuple[str, frozenset[str]]


def field_names(value: dict[str, Any], prefix: str = "") -> set[str]:
    """Every field's dotted path (`part.state.status`), not looking inside `OPAQUE` ones."""
    names: set[str] = set()
    for key, child in value.items():
        path = f"{prefix}{key}"
        names.add(path)
        if isinstance(child, dict) and path not in OPAQUE:
            names |= field_names(child, f"{path}.")
        if path == "error.data" and isinstance(child, dict) and "message" in child:
            names.add("error.data.message")  # the one field of `data` every consumer reads
        if path == METADATA and isinstance(child, dict):
            names |= {f"{METADATA}.{name}" for name in child}
    return names


def parallel_calls_sorted(shapes: list[Shape]) -> list[Shape]:
    """The shapes with each run of `tool_use` events put in one fixed order: calls of one step run at once and
    are printed as they finish, so which finishes first is each run's own (a `bash` may beat a `read`)."""
    ordered: list[Shape] = []
    for is_tool, run in groupby(shapes, key=lambda shape: shape[0] == "tool_use"):
        events = list(run)
        ordered += sorted(events, key=lambda shape: sorted(shape[1])) if is_tool else events
    return ordered


def opencode_shape(lines: list[str]) -> list[Shape]:
    return parallel_calls_sorted([(e["type"], frozenset(field_names(e))) for e in map(json.loads, lines)])


def strata_shape(lines: list[str]) -> list[Shape]:
    """Strata's events as OpenCode would print them: its own types dropped, the deliberate fields undone."""
    shapes: list[Shape] = []
    for event in map(json.loads, lines):
        if event["type"] in STRATA_ONLY_TYPES:
            continue
        left_out, added = DELIBERATE.get(event["type"], (frozenset(), frozenset()))
        added |= TOOL_ADDITIONS.get((event.get("part") or {}).get("tool", ""), frozenset())
        shapes.append((event["type"], frozenset(field_names(event)) - added | left_out))
    return parallel_calls_sorted(shapes)


def recorded(case: str) -> list[str]:
    return (FIXTURES / "captures" / f"opencode-{case}.jsonl").read_text().splitlines()


def expected_from_strata(case: str, opencode: list[Shape]) -> list[Shape]:
    """OpenCode's shape plus what Strata adds on purpose: a refused permission ends with an `error` event."""
    if case != "refused":
        return opencode
    error = next(shape for shape in opencode_shape(recorded("model-error")) if shape[0] == "error")
    return [*opencode, error]


def run_strata(cli: Cli, case: str) -> subprocess.CompletedProcess[str]:
    work = cli.project
    shutil.copytree(FIXTURES / "project", work, dirs_exist_ok=True)
    subprocess.run(["git", "-C", str(work), "add", "-A"], check=True)
    script = json.loads((FIXTURES / f"script-{case}.json").read_text().replace("__WORK__", str(work)))
    with ScriptedServer(script) as server:
        config = (work / "opencode.json").read_text().replace("__PORT__", str(server.port))
        (work / "opencode.json").write_text(config)
        return cli("run", "--format", "json", *CASES[case])


def test_the_recordings_show_opencodes_order() -> None:
    types = {case: [kind for kind, _ in opencode_shape(recorded(case))] for case in CASES}
    assert types == {
        "text": ["step_start", "text", "step_finish"],
        "tools": ["step_start", "tool_use", "tool_use", "step_finish", "step_start", "text", "step_finish"],
        "refused": ["step_start", "tool_use", "step_finish"],
        "model-error": ["error"],
        "edit": ["step_start", "tool_use", "step_finish"] * 2 + ["step_start", "text", "step_finish"],
        "search": ["step_start", "tool_use", "tool_use", "step_finish", "step_start", "text", "step_finish"],
        "command": ["step_start", "text", "step_finish"],
        "subtask": ["tool_use", "step_start", "text", "step_finish"],  # the task runs with no step of its own
    }


@pytest.mark.parametrize("case", CASES)
def test_json_events_match_what_opencode_printed(cli: Cli, case: str) -> None:
    done = run_strata(cli, case)
    assert done.returncode == STRATA_EXIT_CODES[case], done.stderr
    lines = done.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "session" and json.loads(lines[-1])["type"] == "done"
    assert strata_shape(lines) == expected_from_strata(case, opencode_shape(recorded(case)))


LIVE_AT_ONCE = 2
"""OpenCode runs started together: each takes ~7 s alone, and the machine may be shared with other suites."""
LIVE_TIMEOUT = 240
TIMED_OUT = 124  # GNU timeout's exit status, which capture.sh records as the CLI's


def capture_args(case: str, out: Path) -> list[str]:
    """capture.sh's FIXTURE_DIR OUT_DIR SCRIPT_JSON -- for one case."""
    return [str(FIXTURES / "project"), str(out / case), str(FIXTURES / f"script-{case}.json"), "--"]


@pytest.fixture(scope="module")
def opencode_now(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """OpenCode's stdout for every case, run now through the oracle's capture.sh (a few at a time)."""
    capture = ORACLE / "capture.sh"
    if not (capture.exists() and OPENCODE.exists()):
        pytest.skip(f"OpenCode 1.18.33 is not installed: needs {capture} and {OPENCODE} (capture.sh installs it)")
    out = tmp_path_factory.mktemp("opencode-json")
    # capture.sh leaves its work dirs under TMPDIR: here, not in /tmp.
    env = {
        **os.environ,
        "STRATA_ORACLE_CACHE": str(ORACLE_CACHE),
        "ORACLE_TIMEOUT": str(LIVE_TIMEOUT),
        "TMPDIR": str(out),
        **capture_env(tmp_path_factory),
    }
    commands = [
        [str(capture), "opencode", *capture_args(case, out), "--format", "json", *a] for case, a in CASES.items()
    ]
    # A pool, not batches: the next case starts as soon as any run ends, so no slot waits for a batch's slowest.
    with ThreadPoolExecutor(max_workers=LIVE_AT_ONCE) as pool:
        list(pool.map(_run_quietly, commands, [env] * len(commands)))
    slow = [case for case in CASES if (out / case / "rc.txt").read_text().strip() == str(TIMED_OUT)]
    if slow:
        pytest.skip(f"OpenCode did not finish within {LIVE_TIMEOUT} s for {', '.join(slow)} (machine too busy)")
    return {case: (out / case / "stdout.txt").read_text().splitlines() for case in CASES}


def _run_quietly(command: list[str], env: dict[str, str]) -> None:
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=LIVE_TIMEOUT + 60)


@pytest.mark.opencode_live
@pytest.mark.parametrize("case", CASES)
def test_json_events_match_what_opencode_prints_now(cli: Cli, opencode_now: dict[str, list[str]], case: str) -> None:
    theirs = opencode_shape(opencode_now[case])
    assert theirs == opencode_shape(recorded(case)), "OpenCode no longer prints what was recorded"
    done = run_strata(cli, case)
    assert strata_shape(done.stdout.splitlines()) == expected_from_strata(case, theirs)
