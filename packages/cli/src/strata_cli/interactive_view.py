"""How a turn looks in the interactive mode: markdown answers, one line per tool, permission questions inline.

While text streams, a transient live preview shows it; once the text part is complete (or something else
needs the screen: a tool line, a question) the preview is replaced by the answer rendered once as markdown.
Rendering the final text once, rather than re-drawing a growing markdown block, keeps long answers from
being duplicated when they scroll past the top of the terminal. The preview grows by appending each delta,
and the final text is joined once, so a long answer costs its length, not its length per delta.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from attrs import define, field
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.text import Text

from strata_cli.model_parts import ModelParts
from strata_cli.output import visible
from strata_cli.progress import LiveProgress, Progress
from strata_cli.render import FinishedToolLines, markup, styled
from strata_cli.tool_details import tool_details
from strata_core import bus as b
from strata_core import message as m
from strata_core.bus import PermissionReply, PermissionRequest
from strata_core.prompt import BUILD_AGENT
from strata_core.tool import PlanExitTool

AskPermission = Callable[[PermissionRequest], Awaitable[PermissionReply]]


@define
class TurnView:
    """Renders one session's events in the interactive mode and answers its permission questions."""

    console: Console
    directory: Path
    session_id: str
    ask: AskPermission
    reply: Callable[[str, PermissionReply], None]
    _model_parts: ModelParts = field(init=False)
    _tool_lines: FinishedToolLines = field(init=False)
    _finished_texts: set[str] = field(factory=set, init=False)
    _text: m.TextPart | None = field(default=None, init=False)
    """The text part now previewed, as last announced whole."""
    _pieces: list[str] = field(factory=list, init=False)
    """Its text so far: the announced text, then each delta since."""
    _live: Live | None = field(default=None, init=False)
    _progress: LiveProgress = field(init=False)
    switched_to: str | None = field(default=None, init=False)
    """The agent the next message goes to after an approved plan_exit (OpenCode's TUI switches to build too)."""

    @_model_parts.default
    def _follow_session(self) -> ModelParts:
        return ModelParts(self.session_id)

    @_tool_lines.default
    def _lines_in_directory(self) -> FinishedToolLines:
        return FinishedToolLines(self.directory)

    @_progress.default
    def _progress_on_console(self) -> LiveProgress:
        return LiveProgress(Progress(self.directory), self.console)

    async def handle(self, event: b.BusEvent) -> None:
        part = self._model_parts.part_of(event)
        if part is not None:
            self._part(part)
        elif isinstance(event, b.PartDelta):
            streamed = self._model_parts.streamed_into(event)
            if isinstance(streamed, m.TextPart) and not streamed.synthetic and streamed.id not in self._finished_texts:
                self._grow(streamed, event.delta)
        elif isinstance(event, b.PermissionAsked):
            # Every question is ours to answer, whichever session asks: a subagent started by the task tool
            # runs in a child session, and its questions would otherwise wait forever.
            self.flush()
            self.reply(event.request.id, await self.ask(event.request))
        elif isinstance(event, b.SessionRetry):
            if event.session_id == self.session_id:
                self.note(markup([("↻", "yellow"), f" {event.message} — retrying in {event.delay:.0f}s"]))
        elif isinstance(event, b.SessionError) and event.session_id == self.session_id:
            self.note(markup([("Error:", "red bold"), " ", event.error.message]))
        self._follow_progress(event, part)  # after the event's own lines, which pause it

    def _follow_progress(self, event: b.BusEvent, part: m.Part | None) -> None:
        """Running tools and a thinking model tick below the answer; the text preview has the screen while it
        streams (rich runs one live display at a time)."""
        self._progress.progress.follow(event, part, self.session_id)
        if self._live is None:
            self._progress.refresh()
        else:
            self._progress.pause()

    def note(self, markup: str) -> None:
        self.flush()
        self.console.print(markup)

    def flush(self) -> None:
        """Replace the live preview by the finished markdown of the text so far (live progress pauses too)."""
        self._progress.pause()
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self._text is not None:
            self._finished_texts.add(self._text.id)
            text = "".join(self._pieces)
            if text.strip():
                self.console.print(Markdown(visible(text)))
        self._text = None
        self._pieces = []  # a new list: the stopped preview keeps the old one

    def _part(self, part: m.Part) -> None:
        if isinstance(part, m.TextPart) and not part.synthetic and part.id not in self._finished_texts:
            self._stream(part)
        elif isinstance(part, m.ToolPart):
            if part.tool == PlanExitTool.NAME and isinstance(part.state, m.ToolStateCompleted):
                self.switched_to = BUILD_AGENT
            line = self._tool_lines.first(part)
            if line is not None:
                self.note(styled(line))
                for detail in tool_details(part, self.directory):
                    self.console.print(markup([(detail.text, detail.style)]))

    def _stream(self, part: m.TextPart) -> None:
        """The whole part (at its start or end): its text replaces what its deltas had grown."""
        if self._text is not None and self._text.id != part.id:
            self.flush()
        self._text = part
        self._pieces[:] = [part.text]  # the live preview shows this very list
        if part.time is not None and part.time.end is not None:
            self.flush()
            return
        self._show()

    def _grow(self, part: m.TextPart, delta: str) -> None:
        if self._text is None or self._text.id != part.id:
            self._stream(part)
        self._pieces.append(delta)  # the live display shows it at its next refresh

    def _show(self) -> None:
        if self._live is None:  # a live display already running shows `_pieces` as they grow
            self._progress.pause()
            preview = _Preview(self._pieces)
            self._live = Live(preview, console=self.console, transient=True, vertical_overflow="crop")
            self._live.start()


@define
class _Preview:
    """The text streamed so far, joined only when the live display draws it (a few times a second)."""

    pieces: list[str]

    def __rich__(self) -> Text:
        return Text(visible("".join(self.pieces)))
