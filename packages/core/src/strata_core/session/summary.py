"""What a turn, and a whole session, changed on disk: OpenCode's message and session summaries.

A turn's change runs from the first `step-start` snapshot of the answers to its user message to their last
`step-finish` snapshot; the user message keeps it as `summary.diffs`, each file whole (OpenCode's
`SessionSummary.summarizeMessage`). The session's `summary {additions, deletions, files}` counts the same
range over every message, and `session.diff` carries its files to clients. OpenCode 1.18.33's own session
totals stay zero in its exports; Strata stores the real ones.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from attrs import evolve

from strata_core.bus import Bus, SessionDiff, SessionUpdated
from strata_core.logging import get_logger
from strata_core.message import MessageWithParts, StepFinishPart, StepStartPart, UserMessage
from strata_core.session.store import SessionStore
from strata_core.snapshot.contract import FileDiff, Snapshot
from strata_core.snapshot.git_snapshot import SnapshotError

log = get_logger(__name__)


def snapshot_range(history: Sequence[MessageWithParts]) -> tuple[str, str] | None:
    """The first step-start and the last step-finish snapshot in `history`, or None without both.

    The last is looked for from the end and the first from the start, each stopping where it is found: a
    turn's summary runs with every step, and must not walk a long session's whole history to find them."""
    last = next(
        (
            part.snapshot
            for message in reversed(history)
            for part in reversed(message.parts)
            if isinstance(part, StepFinishPart) and part.snapshot
        ),
        None,
    )
    if last is None:
        return None
    first = next(
        (
            part.snapshot
            for message in history
            for part in message.parts
            if isinstance(part, StepStartPart) and part.snapshot
        ),
        None,
    )
    return (first, last) if first is not None else None


def turn_of(history: Sequence[MessageWithParts], user_message_id: str) -> list[MessageWithParts]:
    """The user message `user_message_id` and the assistant messages answering it.

    Looked for from the end back to the user message: an answer is stored after the message it answers."""
    turn: list[MessageWithParts] = []
    for message in reversed(history):
        if message.info.id == user_message_id or getattr(message.info, "parent_id", None) == user_message_id:
            turn.append(message)
        if message.info.id == user_message_id:
            break
    turn.reverse()
    return turn


async def changes(snapshots: Snapshot, history: Sequence[MessageWithParts]) -> list[FileDiff]:
    """Every file changed between the first and the last snapshot of `history`."""
    span = snapshot_range(history)
    if span is None or span[0] == span[1]:
        return []  # nothing to compare (a text answer, a turn's first step): no git process
    return await _diff(snapshots, *span)


_DIFFS_KEPT = 32
_recent_diffs: dict[tuple[int, str, str], tuple[weakref.ref[Snapshot], list[FileDiff]]] = {}
"""The last diffs between two snapshots, by snapshot service and the two trees' hashes."""


async def _diff(snapshots: Snapshot, before: str, after: str) -> list[FileDiff]:
    """`snapshots.diff`, remembered: a snapshot is a git tree, named by its content, so two hashes always
    differ the same way. A long session's range (its first step to its last) changes only when the worktree
    does, and the summary after every step would otherwise run git on it each time."""
    key = (id(snapshots), before, after)
    kept = _recent_diffs.get(key)
    if kept is not None and kept[0]() is snapshots:
        return list(kept[1])
    diffs = await snapshots.diff(before, after)
    try:
        ref = weakref.ref(snapshots)
    except TypeError:  # a snapshot service that takes no weak reference is asked every time
        return diffs
    if len(_recent_diffs) >= _DIFFS_KEPT:
        del _recent_diffs[next(iter(_recent_diffs))]
    _recent_diffs[key] = (ref, list(diffs))
    return diffs


async def _readable_changes(
    snapshots: Snapshot, history: Sequence[MessageWithParts], session_id: str
) -> list[FileDiff]:
    """`changes`, or none when a snapshot cannot be read (an imported session's are another tool's): a summary
    runs with every step and must never end a turn."""
    try:
        return await changes(snapshots, history)
    except SnapshotError as error:
        log.warning("summary.snapshot_unreadable", session_id=session_id, error=str(error))
        return []


def totals(diffs: Sequence[FileDiff]) -> dict[str, int]:
    """A session's `summary`: lines added and deleted, and files changed."""
    return {
        "additions": sum(diff.additions for diff in diffs),
        "deletions": sum(diff.deletions for diff in diffs),
        "files": len(diffs),
    }


async def summarize(
    store: SessionStore,
    bus: Bus,
    snapshots: Snapshot,
    session_id: str,
    user_message_id: str,
    history: Sequence[MessageWithParts] | None = None,
) -> None:
    """Store the turn's diffs on its user message and the session's totals on the session; publish both.

    `history`: the session's messages as the caller holds them (a turn's loop does), else read from the store."""
    if history is None:
        history = await store.messages(session_id)
    turn = turn_of(history, user_message_id)
    if not turn or not isinstance(turn[0].info, UserMessage):
        return
    user = turn[0].info
    diffs = await _readable_changes(snapshots, turn, session_id)
    # The session's first, then the turn's, in OpenCode's order of events.
    await store_session_totals(store, bus, session_id, await _readable_changes(snapshots, history, session_id))
    summary = {**(user.summary or {}), "diffs": [diff.to_json() for diff in diffs]}
    if summary != user.summary:  # most steps change no file: nothing to store, but clients are told all the same
        user.summary = summary  # in place: a caller's history (the loop's) then holds what the store does
        await store.put_message(user)
    bus.message_updated(user)


async def store_session_totals(store: SessionStore, bus: Bus, session_id: str, diffs: Sequence[FileDiff]) -> None:
    """The session's `summary` from `diffs`, stored and published, and `diffs` as a `session.diff` event."""
    info = await store.get_session(session_id)
    if info is None:
        return
    if {**(info.summary or {}), **totals(diffs)} != info.summary:  # most steps change no file: no write
        async with store.batch():  # read and written as one, so a title stored meanwhile is not written over
            current = await store.get_session(session_id)
            if current is None:
                return
            info = evolve(current, summary={**(current.summary or {}), **totals(diffs)})
            await store.put_session(info)
    bus.publish(SessionUpdated(info))
    bus.publish(SessionDiff(session_id, tuple(diff.to_json() for diff in diffs)))
