"""Copying every session of one store into another (`strata db migrate --to postgresql://...`): resumable, verified.

Each session is copied whole in one batch (one transaction on the target): it is there completely or not at
all, so a copy cut off at any moment leaves only whole sessions behind. Run again, the copy skips the sessions
the target already holds as the source does (same record, same messages and parts), and copies the rest; the
writes are upserts, so a session changed here since is replaced there. A session updated in the target after
the source's copy of it (continued on another host) is left alone and reported: copying would roll it back.
Parts are put in their order, which the target keeps. At the end each copied session is read back from the
target and its messages and parts counted against the source's: a difference is reported, never hidden.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import define, field

from strata_core.message import MessageWithParts
from strata_core.session.store import SessionStore


@define
class CopyReport:
    sessions: int = 0
    """Sessions in the source."""
    copied: int = 0
    already_there: int = 0
    newer_there: list[str] = field(factory=list)
    """Sessions the target holds in a later state than the source (continued there): not copied."""
    messages: int = 0
    parts: int = 0
    """Messages and parts of the source, all sessions (the target holds at least these once verified)."""
    mismatched: list[str] = field(factory=list)
    """Sessions whose messages or parts the target does not hold as the source does, after the copy."""


async def copy_sessions(
    source: SessionStore, target: SessionStore, on_session: Callable[[str], None] | None = None
) -> CopyReport:
    """Copy every session of `source` into `target` (see the module docstring); `on_session(id)` after each."""
    report = CopyReport()
    for info in await source.list_sessions():
        report.sessions += 1
        history = await source.messages(info.id)
        report.messages += len(history)
        report.parts += sum(len(message.parts) for message in history)
        there = await target.get_session(info.id)
        if there is not None and there.time.updated > info.time.updated:
            report.newer_there.append(info.id)
        elif there == info and _counts(await target.messages(info.id)) == _counts(history):
            report.already_there += 1
        else:
            async with target.batch():
                await target.put_session(info)
                for message in history:
                    await target.put_message(message.info)
                    for part in message.parts:
                        await target.put_part(part)
            report.copied += 1
            if _counts(await target.messages(info.id)) != _counts(history):
                report.mismatched.append(info.id)
        if on_session is not None:
            on_session(info.id)
    return report


def _counts(history: list[MessageWithParts]) -> list[tuple[str, list[str]]]:
    """Each message id with its parts' ids, in order: what a copy must reproduce."""
    return [(message.info.id, [part.id for part in message.parts]) for message in history]
