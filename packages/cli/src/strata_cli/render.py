"""Rendering a turn in a terminal: the answer streams to stdout, everything about it goes to stderr.

Splitting the streams the way `opencode run` does keeps `strata run "..." > answer.md` clean: stdout holds
only the model's text, while the agent/model header, one line per tool call, retries and errors are
written to stderr (with colour when it is a terminal).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from attrs import define, field
from rich.console import Console
from rich.markup import escape

from strata_cli.model_parts import ModelParts
from strata_cli.tool_lines import ToolLine, describe
from strata_core import bus as b
from strata_core import message as m


def error_console() -> Console:
    """The stderr console: colours only on a terminal, and no syntax guessing inside our own lines."""
    return Console(file=sys.stderr, highlight=False, soft_wrap=True)


def tool_line_for(part: m.ToolPart, directory: Path) -> ToolLine | None:
    """The line for a tool part that has finished or failed; None while it is still pending or running."""
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


def styled(line: ToolLine) -> str:
    """Rich markup for a tool line: a dim icon, red when it failed."""
    if line.failed:
        detail = f" [dim]— {escape(line.error)}[/dim]" if line.error else ""
        return f"[red]✗[/red] {escape(line.title)}{detail}"
    return f"[dim]{escape(line.icon)}[/dim] {escape(line.title)}"


@define
class RunRenderer:
    """Renders the bus events of one session as `strata run` shows them."""

    session_id: str
    directory: Path
    out: TextIO = field(factory=lambda: sys.stdout)
    console: Console = field(factory=error_console)
    _model_parts: ModelParts = field(init=False)
    _tool_lines: FinishedToolLines = field(init=False)
    _written: dict[str, int] = field(factory=dict, init=False)
    _mid_line: bool = field(default=False, init=False)
    _current_text: str | None = field(default=None, init=False)

    @_model_parts.default
    def _follow_session(self) -> ModelParts:
        return ModelParts(self.session_id)

    @_tool_lines.default
    def _lines_in_directory(self) -> FinishedToolLines:
        return FinishedToolLines(self.directory)

    def header(self, agent: str, model: str) -> None:
        self.console.print(f"[bold]>[/bold] {escape(agent)} · {escape(model)}")

    def handle(self, event: b.BusEvent) -> None:
        part = self._model_parts.part_of(event)
        if part is not None:
            self._part(part)
        elif isinstance(event, b.RetryScheduled):
            if event.session_id == self.session_id:
                self.note(f"[yellow]↻[/yellow] {escape(event.message)} — retrying in {event.delay:.0f}s "
                          f"(attempt {event.attempt})")
        elif isinstance(event, b.SessionError) and event.session_id == self.session_id:
            self.error(event.error.message)

    def note(self, markup: str) -> None:
        """A status line on stderr, after ending any half-written line of answer text."""
        self._end_line()
        self.console.print(markup)

    def error(self, message: str) -> None:
        self.note(f"[red bold]Error:[/red bold] {escape(message)}")

    def finish(self) -> None:
        self._end_line()

    def _part(self, part: m.Part) -> None:
        if isinstance(part, m.TextPart) and not part.synthetic:
            self._text(part)
        elif isinstance(part, m.ToolPart):
            line = self._tool_lines.first(part)
            if line is not None:
                self.note(styled(line))

    def _text(self, part: m.TextPart) -> None:
        # Write what is new since last time, whether or not the update carried a delta.
        done = self._written.get(part.id, 0)
        new = part.text[done:]
        if not new:
            return
        if self._current_text != part.id:
            self._end_line()
            self._current_text = part.id
        self._written[part.id] = len(part.text)
        self.out.write(new)
        self.out.flush()
        self._mid_line = not new.endswith("\n")

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
