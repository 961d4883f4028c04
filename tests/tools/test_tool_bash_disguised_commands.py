"""A command whose text hides its name (`X=1 rm f`, `'rm' f`, `command rm f`, `/bin/rm f`) is also asked about
as bash runs it, so a rule such as `rm *: deny` holds for every spelling; plainly written commands are asked
about by their text alone, as in OpenCode."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_fakes import DEFAULT_RULES, Asker, MakeContext, rules

from strata_core.permission.rules import DeniedError
from strata_core.tool.builtin.bash import BashTool
from strata_core.tool.support.shell_parse import scan

pytestmark = pytest.mark.anyio

HOME = Path("/home/me")
CWD = Path("/work/project")
DISGUISED_RM = ["X=1 rm f.txt", "r\\m f.txt", "'rm' f.txt", '"rm" f.txt', "time rm f.txt", "command rm f.txt",
                "env -i LANG=C rm f.txt", "/bin/rm f.txt", "nohup rm f.txt", "> /dev/null rm f.txt"]  # fmt: skip


def _inside(path: Path) -> bool:
    return path.is_relative_to(CWD)


@pytest.mark.parametrize("command", DISGUISED_RM)
def test_a_disguised_command_is_asked_about_by_its_text_and_as_bash_runs_it(command: str) -> None:
    result = scan(command, CWD, HOME, _inside)
    assert result.patterns == (command, "rm f.txt")
    assert "rm *" in result.always  # "always" covers the plain spelling too, or it would ask every time


@pytest.mark.parametrize(
    "command", ["rm f.txt", 'echo "hello world"', "echo hi > out.txt", "git push origin main", "./build.sh --fast"]
)
def test_a_plainly_written_command_is_asked_about_by_its_text_alone(command: str) -> None:
    assert scan(command, CWD, HOME, _inside).patterns == (command,)


def test_a_wrapped_file_command_outside_the_project_needs_external_directory() -> None:
    assert scan("command rm /etc/passwd", CWD, HOME, _inside).outside == (Path("/etc/passwd"),)


@pytest.mark.parametrize("command", DISGUISED_RM)
async def test_an_rm_deny_rule_holds_for_every_spelling(command: str, project: Path, make_ctx: MakeContext) -> None:
    (project / "f.txt").write_text("keep me\n")
    denying = DEFAULT_RULES + rules({"bash": {"*": "allow", "rm *": "deny"}})
    with pytest.raises(DeniedError):
        await BashTool(home=project).execute({"command": command}, make_ctx(ask=Asker(rules=denying), ruleset=denying))
    assert (project / "f.txt").read_text() == "keep me\n"
