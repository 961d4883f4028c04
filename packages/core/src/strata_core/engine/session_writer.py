"""Taking a session for writing: its one-writer lease, and what a crashed writer left behind, settled.

A process killed mid-step (or cut off from a shared database for good) leaves its running tool calls stored as
`running` (or `pending`) and its answer without an end. Whoever next takes the session's lease first knows no
other process is writing it, so neither can finish: the calls are marked interrupted, as OpenCode marks the
calls of an aborted step (an error keeping what the tool had reported, `metadata.interrupted`), and the answer
ends as an aborted one with what it had stored, before anything else reads the session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from strata_core.clock import Clock
from strata_core.engine.tool_calls import interrupted
from strata_core.message import ABORTED_ERROR, AssistantMessage, MessageError, ToolStatePending, ToolStateRunning
from strata_core.session.lease import SessionBusyError
from strata_core.session.store import SessionStore


@asynccontextmanager
async def writing(store: SessionStore, session_id: str, clock: Clock) -> AsyncIterator[None]:
    """Hold the session's lease (busy elsewhere: `SessionBusyError`) and settle a crashed writer's calls."""
    async with store.lease(session_id) as first:
        if first:
            await settle_interrupted_calls(store, session_id, clock.now_ms())
            await settle_interrupted_answer(store, session_id, clock.now_ms())
        yield


async def settle_if_idle(store: SessionStore, session_id: str, clock: Clock) -> None:
    """For readers (`session show`): settle a crashed writer's calls unless a live process is writing now."""
    try:
        async with writing(store, session_id, clock):
            pass
    except SessionBusyError:
        pass  # its calls may really be running


async def settle_interrupted_calls(store: SessionStore, session_id: str, now: int) -> int:
    """Mark the session's unfinished tool calls interrupted; how many there were. Call it only with the lease."""
    settled = 0
    for part in await store.unfinished_tool_parts(session_id):  # one query, not the whole session loaded
        if isinstance(part.state, ToolStatePending | ToolStateRunning):
            part.state = interrupted(part.state, now)
            await store.put_part(part)
            settled += 1
    return settled


INTERRUPTED_ANSWER = "The answer was cut off: the process writing it stopped before it ended."


async def settle_interrupted_answer(store: SessionStore, session_id: str, now: int) -> bool:
    """End the session's newest message as aborted if it is an answer a crashed writer left open; whether it was.
    Call it only with the lease."""
    newest = await store.newest_message(session_id)
    if not isinstance(newest, AssistantMessage) or newest.time.completed is not None or newest.error is not None:
        return False
    newest.error = MessageError(ABORTED_ERROR, INTERRUPTED_ANSWER)
    newest.time.completed = now
    await store.put_message(newest)
    return True
