"""Rendering a turn in a terminal: the answer streams to stdout, everything about it goes to stderr.

Splitting the streams the way `opencode run` does keeps `strata run "..." > answer.md` clean: stdout holds
only the model's text, while the agent/model header, one line per tool call (with what it changed or printed
under it: `tool_details`), retries and errors are written to stderr (with colour when it is a terminal).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from attrs import define, field

from strata_cli.model_parts import ModelParts
from strata_cli.output import visible
from strata_core import bus as b
from strata_core import message as m

if TYPE_CHECKING:
    from rich.console import Console

    from strata_cli.progress import LiveProgress
    from strata_cli.tool_lines import ToolLine

Segment = str | tuple[str, str]
"""A piece of a status line: plain text, or (text, rich style)."""


def mcp_failure_line(event: b.McpServerFailed) -> str:
    return f'MCP server "{event.server}" failed: {event.error} (its tools are not offered)'


def error_console(file: TextIO | None = None) -> Console:
    """The stderr console: colours only on a terminal, and no syntax guessing inside our own lines."""
    from rich.console import Console

    # No emoji codes either: a diff or a command's output may well contain `:name:`.
    return Console(file=file or sys.stderr, highlight=False, soft_wrap=True, emoji=False)


def terminal_console() -> Console | None:
    """`error_console()` when rich would treat stderr as a terminal; None when plain writes print the same."""
    # rich's own test (Console.is_terminal): TTY_COMPATIBLE, then FORCE_COLOR, then isatty().
    tty_compatible = os.environ.get("TTY_COMPATIBLE", "")
    force_color = os.environ.get("FORCE_COLOR")
    if tty_compatible == "1" or (tty_compatible != "0" and (force_color is not None or _isatty(sys.stderr))):
        return error_console()
    return None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _parts(segments: Iterable[Segment]) -> list[tuple[str, str]]:
    """The pieces of a status line, their text made `visible`: every status line and tool line passes here."""
    pieces = [(segment, "") if isinstance(segment, str) else segment for segment in segments]
    return [(visible(text), style) for text, style in pieces]


def markup(segments: Iterable[Segment]) -> str:
    """Rich markup for a status line (its text escaped)."""
    from rich.markup import escape

    return "".join(f"[{style}]{escape(text)}[/{style}]" if style else escape(text) for text, style in _parts(segments))


def plain_text(segments: Iterable[Segment]) -> str | None:
    """The line as rich prints it off a terminal (no colours, no wrapping), or None when rich might print it
    differently: emoji codes (`:name:`), control or zero-width characters, tabs, trailing whitespace, and (to
    be safe) brackets and backslashes, which markup escaping has to round-trip."""
    parts = _parts(segments)
    text = "".join(piece for piece, _ in parts)
    if not text.isprintable() or text != text.rstrip() or "[" in text or "\\" in text:
        return None
    for _, run in groupby(parts, key=lambda part: part[1]):
        if "".join(piece for piece, _ in run).count(":") >= 2:
            return None
    return text


def tool_line_for(part: m.ToolPart, directory: Path) -> ToolLine | None:
    """The line for a tool part that has finished or failed; None while it is still pending or running."""
    from strata_cli.tool_lines import describe  # at the first tool call: a text answer needs none of it

    state = part.state
    if isinstance(state, m.ToolStateCompleted):
        return describe(part.tool, state.input, directory, metadata=state.metadata)
    if isinstance(state, m.ToolStateError):
        return describe(part.tool, state.input, directory, metadata=state.metadata or {}, error=state.error)
    return None


@define
class FinishedToolLines:
    """Each tool call's line, given once: when its part first arrives finished or failed."""

    directory: Path
    _shown: set[str] = field(factory=set, init=False)

    def first(self, part: m.ToolPart) -> ToolLine | None:
        """The part's line if it has one now and none was given before; otherwise None."""
        if part.id in self._shown:
            return None
        line = tool_line_for(part, self.directory)
        if line is not None:
            self._shown.add(part.id)
        return line


def segments(line: ToolLine) -> list[Segment]:
    """A tool line's pieces: a dim icon, red when it failed."""
    if line.failed:
        detail: list[Segment] = [" ", ("— " + line.error, "dim")] if line.error else []
        return [("✗", "red"), " ", line.title, *detail]
    return [(line.icon, "dim"), " ", line.title]


def styled(line: ToolLine) -> str:
    """Rich markup for a tool line: a dim icon, red when it failed."""
    return markup(segments(line))


@define
class RunRenderer:
    """Renders the bus events of one session as `strata run` shows them."""

    session_id: str
    directory: Path
    out: TextIO = field(factory=lambda: sys.stdout)
    console: Console | None = field(factory=terminal_console)
    err: TextIO = field(factory=lambda: sys.stderr)
    _model_parts: ModelParts = field(init=False)
    _tool_lines: FinishedToolLines = field(init=False)
    _written: dict[str, int] = field(factory=dict, init=False)
    _mid_line: bool = field(default=False, init=False)
    _current_text: str | None = field(default=None, init=False)
    _progress: LiveProgress | None = field(default=None, init=False)
    """Running tools and a thinking model, ticking on a terminal (`progress.py`); None off one."""
    _answer_on_terminal: bool = field(default=False, init=False)
    """The answer is shown `visible` on a terminal, and written as the model sent it to a file or pipe (data)."""

    def __attrs_post_init__(self) -> None:
        self._answer_on_terminal = _isatty(self.out)
        if self.console is not None and self.console.is_terminal:
            from strata_cli.progress import LiveProgress, Progress

            self._progress = LiveProgress(Progress(self.directory), self.console)

    @_model_parts.default
    def _follow_session(self) -> ModelParts:
        return ModelParts(self.session_id)

    @_tool_lines.default
    def _lines_in_directory(self) -> FinishedToolLines:
        return FinishedToolLines(self.directory)

    def header(self, agent: str, model: str) -> None:
        self.note((">", "bold"), " ", agent, " · ", model)

    def handle(self, event: b.BusEvent) -> None:
        part = self._model_parts.part_of(event)
        if self._progress is not None:
            self._progress.progress.follow(event, part, self.session_id)
            self._progress.refresh()
        if part is not None:
            self._part(part)
        elif isinstance(event, b.PartDelta):
            streamed = self._model_parts.streamed_into(event)
            if isinstance(streamed, m.TextPart) and not streamed.synthetic:
                self._write_text(streamed.id, event.delta)
        elif isinstance(event, b.SessionRetry):
            if event.session_id == self.session_id:
                self.note(
                    ("↻", "yellow"), " ", event.message, f" — retrying in {event.delay:.0f}s (attempt {event.attempt})"
                )
        elif isinstance(event, b.McpServerFailed):
            self.note(("!", "yellow"), " ", mcp_failure_line(event))
        elif isinstance(event, b.SessionError) and event.session_id == self.session_id:
            self.error(event.error.message)

    def note(self, *line: Segment) -> None:
        """A status line on stderr, after ending any half-written line of answer text.

        Off a terminal it is written as plain text, without loading rich, whenever that prints the same."""
        self._end_line()
        plain = plain_text(line) if self.console is None else None
        if plain is not None:
            self.err.write(plain + "\n")
            self.err.flush()
            return
        if self.console is None:
            self.console = error_console(self.err)
        self.console.print(markup(line))

    def error(self, message: str) -> None:
        self.note(("Error:", "red bold"), " ", message)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.pause()
        self._end_line()

    def _part(self, part: m.Part) -> None:
        if isinstance(part, m.TextPart) and not part.synthetic:
            self._text(part)
        elif isinstance(part, m.ToolPart):
            line = self._tool_lines.first(part)
            if line is not None:
                from strata_cli.tool_details import tool_details

                self.note(*segments(line))
                for detail in tool_details(part, self.directory):
                    self.note((detail.text, detail.style))

    def _text(self, part: m.TextPart) -> None:
        # The whole part (at its start, at its end, or a text that never streamed): write what its deltas did not.
        done = self._written.get(part.id, 0)
        if len(part.text) > done:
            self._write_text(part.id, part.text[done:])

    def _write_text(self, part_id: str, new: str) -> None:
        if not new:
            return
        if self._current_text != part_id:
            self._end_line()
            self._current_text = part_id
        self._written[part_id] = self._written.get(part_id, 0) + len(new)
        self.out.write(visible(new) if self._answer_on_terminal else new)
        self.out.flush()
        self._mid_line = not new.endswith("\n")

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
