"""`opencode run` (1.18.33) and `strata run` with real language servers and formatters send the same requests.

Four sessions, each run live by both CLIs through the oracle's capture.sh (once per module and session, two runs at
a time), with the LSP tools' bin dirs first on PATH; compare.py then compares what they sent, tool results included:
- `pyright`: `tests/oracle_fixtures/lsp-pyright/`, a Python project with `"lsp": true`, whose script edits
  calc.py cleanly (starting pyright, whose first analysis may outlast the 5 s wait on a loaded machine, so that
  result must not depend on it), then into a type error, then writes use.py with an error of its own (so the
  write reports both files);
- `apply_patch`: the same Python project with a GPT-5 model (OpenCode offers it apply_patch instead of edit and
  write), one patch putting a type error in each of the two files (each reported under its relative name);
- `custom_server`: the same project with pyright disabled and python-lsp-server (pyflakes) configured as a
  server of its own (`"lsp": {"pylsp": {"command": [...], "extensions": [".py"]}}`): undefined names in an
  edit and a write;
- `typescript`: a TypeScript project (built here: it links the installed TypeScript 5 and prettier into its
  node_modules) with `"lsp": true, "formatter": true`: two edits of main.ts, the second a type error, a
  Python file written unformatted and read (ruff formats it), a TypeScript file likewise (prettier).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import attrs
import pytest
from cli_harness import STRATA
from lsp_tools import NPM_BIN, NPM_MODULES, PY_BIN, tool, tools_path
from opencode_oracle import ORACLE, capture_env, compare, history_fields, missing_reason

pytestmark = [
    pytest.mark.slow,
    pytest.mark.opencode_live,
    pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or ""),
]

REPO = Path(__file__).parents[2]
PYRIGHT_FIXTURE = REPO / "tests" / "oracle_fixtures" / "lsp-pyright"
MESSAGE = "change the code"


def call(name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


TYPESCRIPT_SCRIPT = [
    call("read", filePath="__WORK__/main.ts"),
    call("edit", filePath="__WORK__/main.ts", oldString="= 1", newString="= 2"),
    call("write", filePath="__WORK__/style.ts", content="const a = {b:1}\n"),
    call("read", filePath="__WORK__/style.ts"),
    call("edit", filePath="__WORK__/main.ts", oldString="= 2", newString='= "one"'),
    call("write", filePath="__WORK__/fmt.py", content="x   =  [1,2]\n"),
    call("read", filePath="__WORK__/fmt.py"),
    {"text": "Done."},
]
"""The read opens main.ts, which starts loading the project into tsserver; the first edit and the new style.ts
are clean, so their results do not depend on how long that takes. Only then is main.ts diagnosed.

typescript-language-server's pushes carry no document version, so OpenCode takes the first push after an edit
as its answer (Strata asks tsserver, `lsp/tsserver_pull.py`). A push still owed for the project's load (seconds
on a loaded machine, past an edit's 5 s wait) would answer OpenCode's next edit with the old, clean state: the
clean steps in between give the load 10 s and more. The fmt.py write after the error reports it under "other
files"."""


def pyright_session(root: Path) -> tuple[Path, Path]:
    tool(NPM_BIN / "pyright-langserver")
    return PYRIGHT_FIXTURE / "fixture", PYRIGHT_FIXTURE / "script.json"


WARM_UP_PATCH = "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a + b\n+    return b + a\n*** End Patch"
"""A clean patch first: it starts pyright, whose first analysis may outlast the 5 s wait under load."""
PATCH = (
    '*** Begin Patch\n*** Update File: calc.py\n@@\n-    return b + a\n+    return "x" + a\n'
    "*** Update File: use.py\n@@\n-total: int = add(1, 2)\n+total: str = add(1, 2)\n*** End Patch"
)


def apply_patch_session(root: Path) -> tuple[Path, Path]:
    tool(NPM_BIN / "pyright-langserver")
    fixture = root / "fixture"
    shutil.copytree(PYRIGHT_FIXTURE / "fixture", fixture)
    config = json.loads((fixture / "opencode.json").read_text())
    config["provider"]["mock"]["models"] = {"gpt-5-mock": {"name": "GPT-5 mock", "tool_call": True}}
    (fixture / "opencode.json").write_text(json.dumps({**config, "model": "mock/gpt-5-mock"}))
    script = root / "script.json"
    turns = [call("apply_patch", patchText=WARM_UP_PATCH), call("apply_patch", patchText=PATCH), {"text": "Done."}]
    script.write_text(json.dumps(turns))
    return fixture, script


def custom_server_session(root: Path) -> tuple[Path, Path]:
    pylsp = tool(PY_BIN / "pylsp")
    fixture = root / "fixture"
    shutil.copytree(PYRIGHT_FIXTURE / "fixture", fixture)
    config = json.loads((fixture / "opencode.json").read_text())
    servers = {"pyright": {"disabled": True}, "pylsp": {"command": [str(pylsp)], "extensions": [".py"]}}
    (fixture / "opencode.json").write_text(json.dumps({**config, "lsp": servers}))
    script = root / "script.json"
    use = "import os\nfrom calc import add\n\ntotal = add(1, missing)\n"
    turns = [
        call("edit", filePath="__WORK__/calc.py", oldString="return a + b", newString="return a + undefined_name"),
        call("write", filePath="__WORK__/use.py", content=use),
        {"text": "Done."},
    ]
    script.write_text(json.dumps(turns))
    return fixture, script


def typescript_session(root: Path) -> tuple[Path, Path]:
    tool(NPM_BIN / "typescript-language-server")
    prettier = tool(NPM_BIN / "prettier")
    typescript = tool(NPM_MODULES / "typescript" / "lib" / "tsserver.js").parents[1]
    fixture = root / "fixture"
    (fixture / "node_modules" / ".bin").mkdir(parents=True)
    (fixture / "node_modules" / "typescript").symlink_to(typescript)
    (fixture / "node_modules" / ".bin" / "prettier").symlink_to(prettier)
    package = {"name": "demo", "private": True, "devDependencies": {"prettier": "3"}}
    (fixture / "package.json").write_text(json.dumps(package))
    (fixture / "tsconfig.json").write_text(json.dumps({"compilerOptions": {"strict": True}}))
    (fixture / "main.ts").write_text("const total: number = 1;\n")
    (fixture / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1.0"\n\n[tool.ruff]\n')
    config = json.loads((PYRIGHT_FIXTURE / "fixture" / "opencode.json").read_text())
    (fixture / "opencode.json").write_text(json.dumps({**config, "formatter": True}))
    script = root / "script.json"
    script.write_text(json.dumps(TYPESCRIPT_SCRIPT))
    return fixture, script


SESSIONS = {
    "pyright": pyright_session,
    "apply_patch": apply_patch_session,
    "custom_server": custom_server_session,
    "typescript": typescript_session,
}
THIS_FILE, OTHER_FILES = "LSP errors detected in this file, please fix:\n", "LSP errors detected in other files:\n"
EXPECTED = {
    "pyright": [
        THIS_FILE,
        OTHER_FILES,
        '<diagnostics file="<WORK>/calc.py">\nERROR [2:12] Operator "+" not supported',
        '<diagnostics file="<WORK>/use.py">\nERROR [3:14] Type "int" is not assignable to declared type "str"',
    ],
    "apply_patch": ["LSP errors detected in calc.py, please fix:\n", "LSP errors detected in use.py, please fix:\n"],
    "custom_server": [
        THIS_FILE,
        OTHER_FILES,
        "ERROR [2:16] undefined name 'undefined_name'",
        "ERROR [4:16] undefined name 'missing'",
    ],
    "typescript": [
        THIS_FILE,
        OTHER_FILES,
        "ERROR [1:7] Type 'string' is not assignable to type 'number'.",
        "1: x = [1, 2]\n",
        "1: const a = { b: 1 };\n",
    ],
}
"""What OpenCode's tool results carry in each session (so that agreeing cannot mean both sent nothing)."""


@attrs.frozen
class Captures:
    session: str
    opencode: Path
    strata: Path


LIVE_AT_ONCE = 2
"""Captures run together. The module's eight runs (each CLI with its language servers, tens of seconds of CPU) all
land on one xdist worker, one after the other they were the longest chain of the suite; two at a time, the other
workers' CPU left idle at the end of a run goes to them."""
LIVE_TIMEOUT = 240
"""capture.sh's limit for one CLI run (its default is 120 s): two runs at once on a loaded machine take longer."""
IMPLEMENTATIONS = ("opencode", "strata")


def capture(implementation: str, fixture: Path, script: Path, out: Path, extra_env: dict[str, str]) -> Path:
    """One capture.sh run of the fixture (OpenCode's or Strata's CLI); fails with the CLI's stderr."""
    env = {**os.environ, "PATH": tools_path(), "STRATA_CMD": f"{STRATA} run", "TMPDIR": str(out.parent)}
    env.update(extra_env)
    env["ORACLE_TIMEOUT"] = str(LIVE_TIMEOUT)
    command = [str(ORACLE / "capture.sh"), implementation, str(fixture), str(out), str(script), "--", MESSAGE]
    done = subprocess.run(
        command, cwd=REPO, env=env, capture_output=True, text=True, timeout=LIVE_TIMEOUT + 60, check=False
    )
    rc = (out / "rc.txt").read_text().strip() if (out / "rc.txt").exists() else "none"
    assert done.returncode == 0 and rc == "0", f"{implementation}: {done.stderr}\n{_read(out / 'stderr.txt')}"
    return out


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


@pytest.fixture(scope="module")
def every_capture(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Callable[[], Captures]]:
    """Each session's captures, made once per module, `LIVE_AT_ONCE` runs at a time; per session, a call that
    returns them or raises what stopped them (a skip for a missing tool, a failed run), so only that session's
    tests fail or skip."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed (capture.sh commits the fixture)")
    prepared: dict[str, tuple[Path, Path, Path] | BaseException] = {}
    for name, make in SESSIONS.items():
        root = tmp_path_factory.mktemp(f"lsp-oracle-{name}")
        try:
            prepared[name] = (root, *make(root))
        except pytest.skip.Exception as skipped:
            prepared[name] = skipped
    extra_env = capture_env(tmp_path_factory)
    runs: dict[tuple[str, str], Future[Path]] = {}
    with ThreadPoolExecutor(max_workers=LIVE_AT_ONCE) as pool:
        for name, session in prepared.items():
            if not isinstance(session, BaseException):
                root, fixture, script = session
                for implementation in IMPLEMENTATIONS:
                    runs[name, implementation] = pool.submit(
                        capture, implementation, fixture, script, root / implementation, extra_env
                    )
    return {name: partial(_captures, name, prepared[name], runs) for name in SESSIONS}


def _captures(
    name: str, session: tuple[Path, Path, Path] | BaseException, runs: dict[tuple[str, str], Future[Path]]
) -> Captures:
    if isinstance(session, BaseException):
        raise session
    return Captures(name, runs[name, "opencode"].result(), runs[name, "strata"].result())


@pytest.fixture(params=list(SESSIONS))
def captures(request: pytest.FixtureRequest, every_capture: dict[str, Callable[[], Captures]]) -> Captures:
    return every_capture[request.param]()


def tool_results(capture_dir: Path) -> list[str]:
    """The tool results of the last request, the run's work dir replaced by `<WORK>`."""
    work = (capture_dir / "workdir.txt").read_text().strip()
    last = sorted(capture_dir.glob("[0-9][0-9][0-9].json"))[-1]
    body: dict[str, Any] = json.loads(last.read_text())
    return [str(m["content"]).replace(work, "<WORK>") for m in body["messages"] if m["role"] == "tool"]


def test_opencodes_results_carry_the_diagnostics_and_formatted_files(captures: Captures) -> None:
    results = "\n".join(tool_results(captures.opencode))
    for expected in EXPECTED[captures.session]:
        assert expected in results


def test_strata_sends_the_same_tool_results(captures: Captures) -> None:
    assert tool_results(captures.strata) == tool_results(captures.opencode)


def test_every_request_agrees_on_the_conversation(captures: Captures) -> None:
    fields = history_fields(compare(captures.opencode, captures.strata))
    assert any(name.endswith(".result") for name in fields), "compare.py found no tool results"
    assert {name: row for name, row in fields.items() if row[0] == "DIFF"} == {}
    main = [len(list(folder.glob("[0-9][0-9][0-9].json"))) for folder in (captures.strata, captures.opencode)]
    assert main[0] == main[1]
