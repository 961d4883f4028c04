"""Control characters in what a tool call shows (its command, path, output, error) and in the permission question
are shown, not obeyed: an escape sequence from the model or a file name must not erase, move or retitle what
the person reads on the terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from session_records import assistant_message

from strata_cli.output import echo_table, visible
from strata_cli.permission_prompt import describe_request
from strata_cli.render import RunRenderer
from strata_cli.transcript import conversation_lines
from strata_core import bus as b
from strata_core import message as m

SESSION = "ses_1"
ESC = "\x1b"
SPOOF = f"rm -f important.txt; : '{ESC}[2K{ESC}[1Gbash ls -la'"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _bash(command: str, output: str) -> m.ToolPart:
    done = m.ToolStateCompleted(
        input={"command": command, "description": "list"},
        output=output,
        title=command,
        metadata={"output": output, "exit": 0},
        time=m.ToolCompletedTime(start=1, end=2),
    )
    return m.ToolPart(id="prt_t", session_id=SESSION, message_id="msg_2", call_id="c", tool="bash", state=done)


def _rendered(*events: b.BusEvent, out: io.StringIO | None = None) -> tuple[str, str]:
    out, err = out or io.StringIO(), io.StringIO()
    console = Console(file=err, highlight=False, soft_wrap=True, color_system=None)
    renderer = RunRenderer(SESSION, Path("/w"), out=out, console=console)
    renderer.handle(b.MessageUpdated(assistant_message(SESSION, "msg_1", "msg_2")))
    for event in events:
        renderer.handle(event)
    renderer.finish()
    return out.getvalue(), err.getvalue()


def test_visible_shows_escapes_c1_controls_and_bidi_overrides_and_keeps_tabs() -> None:
    assert visible(f"a{ESC}[2Jb\x07\tc\r\x7f") == "a␛[2Jb␇\tc␍␡"
    assert visible("x\x9by\u202ez") == "x\\x9by\\u202ez"
    assert visible("one\ntwo") == "one\ntwo"
    assert visible("one\ntwo", newlines=False) == "one␊two"


def test_a_commands_escape_sequences_and_its_outputs_title_sequence_are_shown_on_stderr() -> None:
    part = _bash(f"echo hi # {ESC}[2J", f"out{ESC}]0;PWNED\x07\n")
    _, err = _rendered(b.PartUpdated(part))
    assert ESC not in err and "\x07" not in err
    assert err == "$ echo hi # ␛[2J\n  out␛]0;PWNED␇\n"


def test_a_failed_reads_path_with_an_escape_is_shown_in_its_line() -> None:
    failed = m.ToolStateError(input={"filePath": f"/w/evil{ESC}[31m.txt"}, error="not found", time=m.PartTime(1))
    part = m.ToolPart(id="prt_r", session_id=SESSION, message_id="msg_2", call_id="r", tool="read", state=failed)
    _, err = _rendered(b.PartUpdated(part))
    assert err == "✗ Read evil␛[31m.txt — not found\n"


def test_the_answer_is_shown_visible_on_a_terminal_and_kept_as_sent_in_a_pipe() -> None:
    text = b.PartUpdated(m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", text=f"a{ESC}[2J\nb"))
    assert _rendered(text, out=_Terminal())[0] == "a␛[2J\nb\n"
    assert _rendered(text)[0] == f"a{ESC}[2J\nb\n"


def test_the_permission_question_shows_the_whole_command_on_one_line() -> None:
    request = b.PermissionRequest(
        id="per_1",
        session_id=SESSION,
        permission="bash",
        patterns=("rm -f important.txt", f": '{ESC}[2K{ESC}[1Gbash ls -la'", "echo a\necho b"),
        metadata={},
        always=(),
    )
    shown = describe_request(request, Path("/w"))
    assert shown == "bash rm -f important.txt, : '␛[2K␛[1Gbash ls -la', echo a␊echo b"


def test_a_stored_sessions_transcript_shows_escapes() -> None:
    message = m.MessageWithParts(assistant_message(SESSION, "msg_1", "msg_2"), [_bash(SPOOF, "ok\n")])
    lines = conversation_lines([message], Path("/w"))
    assert "$ rm -f important.txt; : '␛[2K␛[1Gbash ls -la'" in lines
    assert not any(ESC in line for line in lines)


def test_a_table_cell_such_as_a_session_title_is_shown_on_one_line_not_obeyed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    echo_table(["ID", "TITLE"], [("ses_1", "fix \x1b[2Jthe\nbuild\x07")])
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.splitlines()[1] == "ses_1  fix \u241b[2Jthe\u240abuild\u2407"
