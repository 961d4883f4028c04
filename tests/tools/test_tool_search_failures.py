"""grep and glob never pass a failed search off as an empty one: a request ripgrep refuses is an error that
quotes ripgrep, and files that could not be read are said to be missing from the results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from denied_access import run_held_to_permissions

from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.contract import ToolContext, ToolFailure
from strata_core.tool.support.search import Search, find_rg

pytestmark = pytest.mark.anyio

GREP_NOTE = "(Some files or directories could not be read, so they were not searched.)"
GLOB_NOTE = "(Some directories could not be read, so the files in them are not listed.)"


@pytest.fixture
def rg_search(project: Path) -> Search:
    assert find_rg() is not None, "the ripgrep wheel should put rg next to the interpreter"
    (project / "a.py").write_text("def foo():\n    return 1\n")
    return Search(use_rg=True)


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        ({"pattern": "foo\\nreturn"}, 'the literal "\\n" is not allowed in a regex'),
        ({"pattern": "foo\nreturn"}, 'the literal "\\n" is not allowed in a regex'),
        ({"pattern": "return", "include": "[unclosed"}, "error parsing glob '[unclosed'"),
        ({"pattern": "(unclosed"}, "regex parse error"),
    ],
    ids=["escaped-newline", "literal-newline", "bad-include", "bad-regex"],
)
async def test_grep_reports_what_ripgrep_refused(
    rg_search: Search, ctx: ToolContext, args: dict[str, str], quoted: str
) -> None:
    with pytest.raises(ToolFailure) as error:
        await GrepTool(search=rg_search).execute(args, ctx)
    assert str(error.value).startswith("rg: ") and quoted in str(error.value)


async def test_glob_reports_a_glob_ripgrep_cannot_parse(rg_search: Search, ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure) as error:
        await GlobTool(search=rg_search).execute({"pattern": "[unclosed"}, ctx)
    assert str(error.value) == "rg: error parsing glob '[unclosed': unclosed character class; missing ']'"


async def test_a_search_that_reads_everything_has_no_note(rg_search: Search, ctx: ToolContext) -> None:
    grep = await GrepTool(search=rg_search).execute({"pattern": "return"}, ctx)
    glob = await GlobTool(search=rg_search).execute({"pattern": "*.py"}, ctx)
    assert GREP_NOTE not in grep.output and GLOB_NOTE not in glob.output


_SEARCHES = """
import json, sys
from pathlib import Path
import anyio
from tool_fakes import Asker, Updates
from strata_core.llm import ModelInfo
from strata_core.tool.builtin.glob import GlobTool
from strata_core.tool.builtin.grep import GrepTool
from strata_core.tool.contract import ToolContext
from strata_core.tool.support.search import Search

project, use_rg = Path(sys.argv[1]), sys.argv[2] == "rg"
asker = Asker()
ctx = ToolContext(
    session_id="ses_test", message_id="msg_test", call_id="call_test", agent="build", ruleset=asker.rules,
    directory=project, worktree=project, model=ModelInfo(provider_id="mock", id="mock-model"), ask=asker,
    update_metadata=Updates(),
)

async def main() -> None:
    search = Search(use_rg=use_rg)
    found = await GrepTool(search=search).execute({"pattern": "needle"}, ctx)
    missing = await GrepTool(search=search).execute({"pattern": "nowhere"}, ctx)
    listed = await GlobTool(search=search).execute({"pattern": "**/*.txt"}, ctx)
    print(json.dumps({"found": found.output, "missing": missing.output, "listed": listed.output}))

anyio.run(main)
"""


@pytest.fixture
def unreadable(project: Path) -> Iterator[Path]:
    """A project with a readable match, a mode-000 file and a mode-000 directory, both holding matches."""
    (project / "ok.txt").write_text("needle here\n")
    (project / "locked.txt").write_text("needle locked\n")
    (project / "lockdir").mkdir()
    (project / "lockdir" / "f.txt").write_text("needle hidden\n")
    (project / "locked.txt").chmod(0)
    (project / "lockdir").chmod(0)
    yield project
    (project / "lockdir").chmod(0o755)  # so tmp_path can be cleaned up


@pytest.mark.parametrize("engine", ["rg", "python"])
def test_files_that_could_not_be_read_are_said_to_be_left_out(unreadable: Path, engine: str) -> None:
    helpers = str(Path(__file__).parents[1] / "helpers")
    script = f"import sys; sys.path.insert(0, {helpers!r})\n" + _SEARCHES
    said = json.loads(run_held_to_permissions(script, str(unreadable), engine))
    assert said["found"].startswith(f"Found 1 matches\n{unreadable}/ok.txt:\n  Line 1: needle here\n")
    assert said["found"].endswith("\n\n" + GREP_NOTE)
    assert said["missing"] == "No files found\n\n" + GREP_NOTE
    assert f"{unreadable}/ok.txt" in said["listed"] and "lockdir" not in said["listed"]
    assert said["listed"].endswith("\n\n" + GLOB_NOTE)
