"""`strata run` output: the answer alone on stdout, streamed; tool lines and errors on stderr."""

from __future__ import annotations

import io
from pathlib import Path

import attrs
from rich.console import Console
from session_records import assistant_message

from strata_cli.model_parts import ModelParts
from strata_cli.render import RunRenderer, Segment, error_console, markup, plain_text, segments
from strata_cli.tool_lines import ToolLine
from strata_core import bus as b
from strata_core import message as m

SESSION = "ses_1"


def _renderer() -> tuple[RunRenderer, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    console = Console(file=err, highlight=False, soft_wrap=True, color_system=None)
    return RunRenderer(SESSION, Path("/w"), out=out, console=console), out, err


def _assistant() -> m.AssistantMessage:
    return assistant_message(SESSION, "msg_1", "msg_2")


def _text(text: str, part_id: str = "prt_1") -> b.PartUpdated:
    return b.PartUpdated(m.TextPart(id=part_id, session_id=SESSION, message_id="msg_2", text=text))


def _tool(state: m.ToolState) -> b.PartUpdated:
    return b.PartUpdated(
        m.ToolPart(id="prt_t", session_id=SESSION, message_id="msg_2", call_id="c", tool="read", state=state)
    )


def test_text_streams_to_stdout_as_it_grows() -> None:
    renderer, out, err = _renderer()
    renderer.handle(b.MessageUpdated(_assistant()))
    renderer.handle(_text("Hel"))
    assert out.getvalue() == "Hel"
    renderer.handle(_text("Hello."))
    renderer.finish()
    assert out.getvalue() == "Hello.\n"
    assert err.getvalue() == ""


def test_text_streams_to_stdout_from_its_deltas_and_the_whole_part_adds_only_what_they_missed() -> None:
    renderer, out, _ = _renderer()
    renderer.handle(b.MessageUpdated(_assistant()))
    renderer.handle(_text(""))
    for piece in ("Hel", "lo", ", "):
        renderer.handle(b.PartDelta(SESSION, "msg_2", "prt_1", "text", piece))
    renderer.handle(b.PartDelta(SESSION, "msg_1", "prt_user", "text", "not the model's"))
    assert out.getvalue() == "Hello, "
    renderer.handle(_text("Hello, world."))
    renderer.finish()
    assert out.getvalue() == "Hello, world.\n"


def test_a_tool_line_goes_to_stderr_once_and_ends_a_half_written_line() -> None:
    renderer, out, err = _renderer()
    renderer.handle(b.MessageUpdated(_assistant()))
    renderer.handle(_text("Reading"))
    renderer.handle(_tool(m.ToolStateRunning(input={"filePath": "/w/sub/notes.txt"}, time=m.PartTime(1))))
    done = m.ToolStateCompleted(
        input={"filePath": "/w/sub/notes.txt"},
        output="...",
        title="sub/notes.txt",
        metadata={},
        time=m.ToolCompletedTime(start=1, end=2),
    )
    renderer.handle(_tool(done))
    renderer.handle(_tool(done))
    assert out.getvalue() == "Reading\n"
    assert err.getvalue() == "→ Read sub/notes.txt\n"


def test_a_failed_tool_and_a_session_error_are_shown_plainly() -> None:
    renderer, _, err = _renderer()
    renderer.handle(b.MessageUpdated(_assistant()))
    failed = m.ToolStateError(input={"filePath": "/w/x"}, error="File not found: /w/x", time=m.PartTime(1))
    renderer.handle(_tool(failed))
    renderer.handle(b.SessionError(SESSION, m.MessageError("APIError", "The server said no")))
    assert err.getvalue() == "✗ Read x — File not found: /w/x\nError: The server said no\n"


def test_parts_of_the_user_message_are_not_echoed() -> None:
    renderer, out, _ = _renderer()
    renderer.handle(_text("what the user typed"))
    assert out.getvalue() == ""


def test_only_updates_of_the_sessions_assistant_parts_are_picked_out() -> None:
    parts = ModelParts(SESSION)
    child = attrs.evolve(_assistant(), id="msg_9", session_id="ses_child")
    assert parts.part_of(b.MessageUpdated(_assistant())) is None
    assert parts.part_of(b.MessageUpdated(child)) is None
    mine = _text("mine")
    theirs = b.PartUpdated(m.TextPart(id="p", session_id="ses_child", message_id="msg_9", text="x"))
    assert parts.part_of(mine) == mine.part
    assert parts.part_of(theirs) is None
    assert parts.part_of(b.SessionError(SESSION, m.MessageError("APIError", "no"))) is None


PLAIN_CASES: list[list[Segment]] = [
    [(">", "bold"), " ", "build", " · ", "mock/gpt-4o-mock"],
    segments(ToolLine("→", "Read sub/notes.txt")),
    segments(ToolLine("$", "ls -la", failed=True, error="boom: exit 2")),
    [("Error:", "red bold"), " ", "no key: set MOCK_API_KEY"],
    [("↻", "yellow"), " ", "rate limited", " — retrying in 2s (attempt 1)"],
    [("Error:", "red bold"), " ", "a :smile: b"],
    ["tab\there"],
    ["x [bold]y[/bold]"],
    ["ends in a backslash \\"],
    ["trailing space "],
    ["https://example.com:8080/x"],
]


def test_plain_status_lines_match_what_rich_prints_off_a_terminal() -> None:
    """Off a terminal the run renderer writes plain text without rich; where rich could differ it uses rich."""
    for line in PLAIN_CASES:
        buffer = io.StringIO()
        error_console(buffer).print(markup(line))
        plain = plain_text(line)
        assert plain is None or plain + "\n" == buffer.getvalue(), line
        err = io.StringIO()
        renderer = RunRenderer(SESSION, Path("/w"), out=io.StringIO(), console=None, err=err)
        renderer.note(*line)
        assert err.getvalue() == buffer.getvalue()
    assert plain_text(PLAIN_CASES[0]) == "> build · mock/gpt-4o-mock"


def test_emoji_codes_in_status_lines_are_printed_as_typed() -> None:
    err = io.StringIO()
    RunRenderer(SESSION, Path("/w"), out=io.StringIO(), console=None, err=err).note("a :smile: b")
    assert err.getvalue() == "a :smile: b\n"
