"""Turns started over the API: each runs in the server's task group, so it outlives the request that
started it (`prompt_async` returns at once; a client that hangs up on `POST /message` does not abort it).

A prompt is checked before it is handed to the loop (session, agent, model: the loop's own checks), so a
bad one is refused with its error and stores nothing; so is one to a session running a user's shell command
(`shells`), which is busy until the command ends. A prompt to a busy session joins that session's loop,
as OpenCode's does: it is stored, picked up by the running turn, and its caller gets the same answer.

The session's one-writer lease is taken before the turn is launched and held until it ends, so a session that
another process (another host, with a shared PostgreSQL store) is writing is refused at once with 409, for
`prompt_async` as for `message`; taking it first also settles the tool calls a crashed writer left running.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

import anyio
from attrs import define, field

from strata_core.bus import SessionError, SessionStatus
from strata_core.engine import PromptRequest, TurnChoice, writing
from strata_core.logging import get_logger
from strata_core.message import ABORTED_ERROR, ABORTED_MESSAGE, MessageError, MessageWithParts
from strata_core.session import SessionBusyError
from strata_server.session_shell import SessionShells

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from strata_core.runtime import Runtime

log = get_logger(__name__)

STOP_SECONDS = 5.0


@define
class RunningTurn:
    """One prompt's run: `done` is set when it has an answer or an error."""

    session_id: str
    done: anyio.Event = field(factory=anyio.Event)
    answer: MessageWithParts | None = None
    error: Exception | None = None
    aborted: bool = False
    """An abort was asked while it ran (`Turns.after_abort` waits for its end, its lease given back)."""

    async def result(self) -> MessageWithParts:
        await self.done.wait()
        if self.error is not None:
            raise self.error
        assert self.answer is not None
        return self.answer


@define
class Turns:
    runtime: Runtime
    group: TaskGroup
    shells: SessionShells = field(factory=SessionShells)
    """The user's shell commands running in sessions (`POST /session/{id}/shell`)."""
    _running: dict[str, list[RunningTurn]] = field(factory=dict, init=False)
    """The turns launched here and not yet ended (their leases not yet given back), by session."""

    async def start(self, request: PromptRequest) -> RunningTurn:
        """Check the prompt, then run it in the background; raises what the loop would raise for a bad one."""
        await self.runtime.sessions.get(request.session_id)
        if self.shells.is_running(request.session_id):
            raise SessionBusyError(request.session_id, elsewhere=False)
        await self.runtime.loop.resolve(TurnChoice.of(request))
        lease = await self._lease(request.session_id)
        return self._launch(request.session_id, lambda: self.runtime.loop.prompt(request), lease)

    async def compact(self, session_id: str) -> RunningTurn:
        """Summarise the session now (`POST /session/{id}/summarize`)."""
        await self.runtime.sessions.get(session_id)
        lease = await self._lease(session_id)
        return self._launch(session_id, lambda: self.runtime.loop.compact(session_id), lease)

    async def _lease(self, session_id: str) -> AsyncExitStack:
        """The session's lease, held until the returned stack is closed; `SessionBusyError` at once when another
        process holds it (the loop's own hold inside then joins this one: the lease is re-entrant)."""
        held = AsyncExitStack()
        await held.enter_async_context(writing(self.runtime.store, session_id, self.runtime.clock))
        return held

    async def abort(self, session_id: str) -> None:
        """Cancel the session's running turn as OpenCode's abort does: its clients are told at once
        (`session.error` MessageAbortedError, then idle), and the turn's end (its calls ended, its message
        completed, idle again) follows as the cancellation reaches it. Returns once that end is stored (at most
        `STOP_SECONDS`), so a client reading the session after its abort was answered, as OpenCode's SDK does,
        finds the aborted message. The session's shell command (`/shell`) is ended too."""
        self.shells.cancel(session_id)
        for turn in self._running.get(session_id, ()):
            turn.aborted = True
        loop = self.runtime.loop
        if loop.is_running(session_id):
            self.runtime.bus.publish(SessionError(session_id, MessageError(ABORTED_ERROR, ABORTED_MESSAGE)))
            self.runtime.bus.publish(SessionStatus(session_id, "idle"))
        await loop.cancel(session_id)
        await self.after_abort(session_id)

    async def after_abort(self, session_id: str) -> None:
        """Before an edit of the session (a message or part deleted or replaced, a revert): an aborted turn still
        ending is waited for (at most `STOP_SECONDS`), since its clients were told idle when the abort was asked
        and may edit then; a turn not aborted keeps the session busy (409)."""
        with anyio.move_on_after(STOP_SECONDS):
            for turn in list(self._running.get(session_id, ())):
                if turn.aborted:
                    await turn.done.wait()

    async def stop(self, session_id: str) -> None:
        """Abort the session's running turn and wait until it has stored its end and given back its lease (before
        a delete, so the aborted answer is not written into a session that is gone, and the delete, which
        takes the lease, finds the session idle)."""
        loop = self.runtime.loop
        self.shells.cancel(session_id)
        await loop.cancel(session_id)
        with anyio.move_on_after(STOP_SECONDS):
            await loop.ended(session_id)
            for turn in list(self._running.get(session_id, ())):
                await turn.done.wait()

    def _launch(
        self, session_id: str, work: Callable[[], Awaitable[MessageWithParts]], lease: AsyncExitStack
    ) -> RunningTurn:
        turn = RunningTurn(session_id)
        self._running.setdefault(session_id, []).append(turn)
        self.group.start_soon(self._run, turn, work, lease, name=f"turn {session_id}")
        return turn

    async def _run(
        self, turn: RunningTurn, work: Callable[[], Awaitable[MessageWithParts]], lease: AsyncExitStack
    ) -> None:
        try:
            turn.answer = await work()
        except Exception as error:  # the turn's failure is its caller's answer, never the server's end
            log.warning("server.turn_failed", session_id=turn.session_id, error=str(error))
            turn.error = error
        finally:
            with anyio.CancelScope(shield=True):
                await lease.aclose()
            self._forget(turn)
            turn.done.set()

    def _forget(self, turn: RunningTurn) -> None:
        running = self._running.get(turn.session_id, [])
        running.remove(turn)
        if not running:
            self._running.pop(turn.session_id, None)
