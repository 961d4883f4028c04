"""A bash line with no simple command of its own is still asked about, so a `*: deny` rule holds for it."""

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


def _inside(path: Path) -> bool:
    return True


async def test_a_bare_redirection_is_denied_by_a_deny_everything_rule(project: Path, make_ctx: MakeContext) -> None:
    (project / "victim.txt").write_text("important data\n")
    denying = DEFAULT_RULES + rules({"bash": {"*": "deny", "echo *": "allow"}})
    asker = Asker(rules=denying)
    with pytest.raises(DeniedError):
        await BashTool(home=project).execute({"command": "> victim.txt"}, make_ctx(ask=asker, ruleset=denying))
    assert (project / "victim.txt").read_text() == "important data\n"
    (ask,) = asker.of("bash")
    assert ask.patterns == ["> victim.txt"] and ask.always == ["> victim.txt"]


def test_a_redirection_after_an_allowed_command_is_asked_about_on_its_own() -> None:
    result = scan("echo hi; >> log.txt 2>&1", CWD, HOME, _inside)
    assert result.patterns == ("echo hi", ">> log.txt 2>&1")
    assert result.always == ("echo *", ">> log.txt 2>&1")


def test_a_redirected_loop_is_asked_about_with_the_commands_inside_it() -> None:
    result = scan("for f in a b; do echo $f; done > out.txt", CWD, HOME, _inside)
    assert result.patterns == ("for f in a b; do echo $f; done > out.txt", "echo $f")


def test_a_line_without_any_command_is_asked_about_as_a_whole() -> None:
    assert scan("X=1", CWD, HOME, _inside).patterns == ("X=1",)
    assert scan("   ", CWD, HOME, _inside).patterns == ()


def test_cd_alone_still_asks_no_bash_permission() -> None:
    # OpenCode's behaviour, kept: cd is judged by the paths it names (external_directory), not as a command.
    assert scan("cd sub", CWD, HOME, _inside).patterns == ()


@pytest.mark.parametrize(
    ("command", "patterns"),
    [
        ("echo x && echo y > victim.txt", ("echo x", "echo y > victim.txt")),
        ("a | b 2>&1 | c > d", ("a", "b 2>&1", "c > d")),
        ("! rm x > y", ("rm x > y",)),
        ("> out echo hi", ("> out echo hi", "echo hi")),  # a redirection first hides the name: asked plainly too
    ],
)
def test_a_redirection_after_a_list_is_asked_about_with_the_command_bash_gives_it_to(
    command: str, patterns: tuple[str, ...]
) -> None:
    # The grammar hangs `> f` on the whole list; bash applies it to the last command, which is asked with it.
    assert scan(command, CWD, HOME, _inside).patterns == patterns
