"""Driving one turn from the terminal: the prompt runs in a task while this task hands each bus event to a renderer.

The events of a run end with the loop's `SessionStatus(idle)`, published after everything else the run
published; stopping there (rather than when `prompt()` returns) guarantees the renderer has seen every part,
in order. Each wake-up handles every event already waiting, not one (`Bus.waiting`), so the reader keeps up
with a fast stream. Ctrl-C cancels the running turn through the loop, so the
session is left consistent (the aborted answer is stored as aborted); a second Ctrl-C gives up at once.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Awaitable, Callable, Sequence

import anyio
from attrs import define

from strata_core.bus import Bus, BusEvent, SessionStatus
from strata_core.engine import TurnEnd
from strata_core.message import AssistantMessage, MessageWithParts

EventHandler = Callable[[BusEvent], Awaitable[None]]


@define
class TurnOutcome:
    answer: MessageWithParts
    interrupted: bool

    @property
    def end(self) -> TurnEnd:
        """How the turn ended; a Ctrl-C makes it aborted even when the answer was complete by then."""
        info = self.answer.info
        if self.interrupted:
            return TurnEnd.ABORTED
        return TurnEnd.of(info) if isinstance(info, AssistantMessage) else TurnEnd.FINISHED


async def drive_turn(
    bus: Bus,
    session_id: str,
    start: Callable[[], Awaitable[MessageWithParts]],
    handle: EventHandler,
    cancel: Callable[[], Awaitable[None]],
) -> TurnOutcome:
    """Run `start()` (a `loop.prompt` or `loop.compact`) while rendering the session's events; Ctrl-C cancels."""
    answer: list[MessageWithParts] = []
    interrupted = anyio.Event()
    finished = anyio.Event()

    async def run() -> None:
        answer.append(await start())
        finished.set()

    async with bus.subscribe() as events, anyio.create_task_group() as group:
        group.start_soon(cancel_on_interrupt, cancel, interrupted)
        group.start_soon(run)
        async for first in events:
            if await _handle_until_idle([first, *bus.waiting(events)], handle, session_id):
                break
        await finished.wait()
        group.cancel_scope.cancel()
    return TurnOutcome(answer[0], interrupted.is_set())


async def _handle_until_idle(events: Sequence[BusEvent], handle: EventHandler, session_id: str) -> bool:
    """Handle `events` in order; True once the session's idle status was handled (the rest are not)."""
    for event in events:
        await handle(event)
        if isinstance(event, SessionStatus) and event.session_id == session_id and event.status == "idle":
            return True
    return False


async def cancel_on_interrupt(cancel: Callable[[], Awaitable[None]], interrupted: anyio.Event) -> None:
    if sys.platform == "win32":  # no signal receivers there; Ctrl-C then ends the process as usual
        await anyio.sleep_forever()
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            if interrupted.is_set():
                raise KeyboardInterrupt
            interrupted.set()
            await cancel()
