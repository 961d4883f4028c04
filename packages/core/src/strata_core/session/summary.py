"""What a turn, and a whole session, changed on disk: OpenCode's message and session summaries.

A turn's change runs from the first `step-start` snapshot of the answers to its user message to their last
`step-finish` snapshot; the user message keeps it as `summary.diffs`, each file whole (OpenCode's
`SessionSummary.summarizeMessage`). The session's `summary {additions, deletions, files}` counts the same
range over every message, and `session.diff` carries its files to clients. OpenCode 1.18.33's own session
totals stay zero in its exports; Strata stores the real ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve

from strata_core.bus import Bus, MessageUpdated, SessionDiff, SessionUpdated
from strata_core.message import MessageWithParts, StepFinishPart, StepStartPart, UserMessage
from strata_core.session.store import SessionStore
from strata_core.snapshot.contract import FileDiff, Snapshot


def snapshot_range(history: Sequence[MessageWithParts]) -> tuple[str, str] | None:
    """The first step-start and the last step-finish snapshot in `history`, or None without both."""
    first: str | None = None
    last: str | None = None
    for message in history:
        for part in message.parts:
            if first is None and isinstance(part, StepStartPart) and part.snapshot:
                first = part.snapshot
            if isinstance(part, StepFinishPart) and part.snapshot:
                last = part.snapshot
    return (first, last) if first is not None and last is not None else None


def turn_of(history: Sequence[MessageWithParts], user_message_id: str) -> list[MessageWithParts]:
    """The user message `user_message_id` and the assistant messages answering it."""
    return [
        message
        for message in history
        if message.info.id == user_message_id or getattr(message.info, "parent_id", None) == user_message_id
    ]


async def changes(snapshots: Snapshot, history: Sequence[MessageWithParts]) -> list[FileDiff]:
    """Every file changed between the first and the last snapshot of `history`."""
    span = snapshot_range(history)
    return [] if span is None else await snapshots.diff(*span)


def totals(diffs: Sequence[FileDiff]) -> dict[str, int]:
    """A session's `summary`: lines added and deleted, and files changed."""
    return {
        "additions": sum(diff.additions for diff in diffs),
        "deletions": sum(diff.deletions for diff in diffs),
        "files": len(diffs),
    }


async def summarize(store: SessionStore, bus: Bus, snapshots: Snapshot, session_id: str, user_message_id: str) -> None:
    """Store the turn's diffs on its user message and the session's totals on the session; publish both."""
    history = await store.messages(session_id)
    turn = turn_of(history, user_message_id)
    if not turn or not isinstance(turn[0].info, UserMessage):
        return
    user = turn[0].info
    diffs = await changes(snapshots, turn)
    user = evolve(user, summary={**(user.summary or {}), "diffs": [diff.to_json() for diff in diffs]})
    await store.put_message(user)
    bus.publish(MessageUpdated(user))
    session_diffs = await changes(snapshots, history)
    await store_session_totals(store, bus, session_id, session_diffs)


async def store_session_totals(store: SessionStore, bus: Bus, session_id: str, diffs: Sequence[FileDiff]) -> None:
    """The session's `summary` from `diffs`, stored and published, and `diffs` as a `session.diff` event."""
    info = await store.get_session(session_id)
    if info is None:
        return
    info = evolve(info, summary={**(info.summary or {}), **totals(diffs)})
    await store.put_session(info)
    bus.publish(SessionUpdated(info))
    bus.publish(SessionDiff(session_id, tuple(diff.to_json() for diff in diffs)))
