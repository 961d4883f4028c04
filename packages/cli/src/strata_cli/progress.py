"""Live progress on a terminal: each tool while it runs, the model while it thinks, with the time it has taken,
and the countdown to a failed model call's next attempt.

A long build or test run printed nothing until it ended, and looked like a hang. `Progress` remembers what is
under way (a running tool part, or a model call with no output yet) and draws one line for each with the
seconds so far; rich's `Live` redraws it a few times a second from its own thread, so the count ticks without a
task of ours, and `transient` takes the lines away when the work ends (the finished tool line is printed then,
as before). Only a terminal gets it: off one (piped, `--format json`) nothing of this is written.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import define, field

from strata_cli.tool_lines import describe
from strata_core import bus as b
from strata_core import message as m

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

THINKING_AFTER = 2.0
"""Seconds of a model call without output before it is shown as thinking (a quick answer needs no line)."""


def elapsed(seconds: float) -> str:
    """`4s`, `1m 05s`: whole seconds, as a counter reads."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


@define
class Progress:
    """What is under way now, drawn by `__rich__` with its elapsed time each time the live display refreshes."""

    directory: Path
    clock: Callable[[], float] = time.monotonic
    _tools: dict[str, tuple[str, float]] = field(factory=dict, init=False)
    _thinking_since: float | None = field(default=None, init=False)
    _retry_at: float | None = field(default=None, init=False)
    """When a failed model call is tried again: counted down to (the note above says why)."""

    def follow(self, event: b.BusEvent, part: m.Part | None, session_id: str) -> None:
        """What is under way after `event` (`part`: the part it carries): a tool part starts or ends a tool's line;
        the session going busy, or its last running tool ending, means a model call is on its way; any output of
        the model ends that."""
        if isinstance(event, b.SessionRetry) and event.session_id == session_id:
            self._retry_at = self.clock() + event.delay
            self._thinking_since = None
        elif isinstance(event, b.SessionStatus) and event.session_id == session_id:
            self._retry_at = None
            self.thinking(event.status == "busy")
        elif isinstance(part, m.ToolPart):
            self.tool(part)
            self.thinking(not self.tools_running)
        elif part is not None or isinstance(event, b.PartDelta):
            self._retry_at = None
            self.thinking(False)

    def tool(self, part: m.ToolPart) -> None:
        """Follow a tool part: running, it gets a line; finished or failed, its line goes."""
        if isinstance(part.state, m.ToolStateRunning):
            line = describe(part.tool, part.state.input, self.directory)
            self._tools.setdefault(part.id, (f"{line.icon} {line.title}", self.clock()))
            self._thinking_since = None
        elif isinstance(part.state, (m.ToolStateCompleted, m.ToolStateError)):
            self._tools.pop(part.id, None)

    def thinking(self, on: bool) -> None:
        """A model call started (on) or said something (off)."""
        if not on:
            self._thinking_since = None
        elif self._thinking_since is None:
            self._thinking_since = self.clock()

    @property
    def tools_running(self) -> bool:
        return bool(self._tools)

    @property
    def active(self) -> bool:
        return self.tools_running or self._thinking_since is not None or self._retry_at is not None

    def lines(self) -> list[str]:
        now = self.clock()
        # Drawn from rich's refresh thread while events change it: copy the tools in one step (under the GIL).
        tools = list(self._tools.values())
        shown = [f"{label} · {elapsed(now - since)}" for label, since in tools]
        if self._thinking_since is not None and now - self._thinking_since >= THINKING_AFTER:
            shown.append(f"thinking · {elapsed(now - self._thinking_since)}")
        if self._retry_at is not None and now < self._retry_at:
            shown.append(f"↻ next attempt in {elapsed(self._retry_at - now)}")
        elif self._retry_at is not None:  # the attempt is under way: waiting for it is thinking again
            self._retry_at, self._thinking_since = None, self._retry_at
        return shown

    def __rich__(self) -> Text:
        from rich.text import Text

        return Text("\n".join(self.lines()), style="dim")


@define
class LiveProgress:
    """Shows a `Progress` on a terminal console while it is active; `pause()` gives the screen back."""

    progress: Progress
    console: Console
    _live: Live | None = field(default=None, init=False)

    def refresh(self) -> None:
        """Start the display when something is under way, stop it when nothing is."""
        if self.progress.active and self._live is None:
            from rich.live import Live

            self._live = Live(self.progress, console=self.console, transient=True, refresh_per_second=4)
            self._live.start()
        elif not self.progress.active:
            self.pause()

    def pause(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
