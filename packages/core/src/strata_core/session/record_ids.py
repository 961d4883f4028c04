"""The ids of a session's records: whether an import can keep an export's, and a history copied under new ones.

An import keeps the ids of the export (restoring a deleted session brings it back as it was), but ids are unique
across the store and a record never moves (`RecordOwnerError`). So an export whose message or part is already
stored in another session (a copy of an export under a changed session id), or that uses one id twice, cannot
be imported as it is: it is refused with the id named, and importing a copy under new ids works.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from attrs import evolve

from strata_core import message as m
from strata_core.errors import StrataError
from strata_core.ids import Ids


class ImportIdsTakenError(StrataError, ValueError):
    """An import whose ids cannot be kept: a message or part id is already stored elsewhere, or the export uses
    one twice. Nothing was stored; `import_session(..., new_ids=True)` imports a copy under new ids."""

    def __init__(self, session_id: str, record_id: str, reason: str) -> None:
        super().__init__(
            f"Session {session_id} cannot be imported with its own ids: {reason}. Nothing was imported; "
            "import a copy under new ids instead."
        )
        self.session_id = session_id
        self.record_id = record_id


def repeated_id(history: Sequence[m.MessageWithParts]) -> str | None:
    """The first message or part id the history uses twice, or None: stored as it is, the second record would
    replace the first (or be refused, under another message)."""
    seen: set[str] = set()
    for message in history:
        for record_id in (message.info.id, *(part.id for part in message.parts)):
            if record_id in seen:
                return record_id
            seen.add(record_id)
    return None


def copy_history(history: Sequence[m.MessageWithParts], session_id: str, ids: Ids) -> list[m.MessageWithParts]:
    """The messages and parts under new ids in `session_id`, in the same order, links remapped.

    New ids are made in history order, so the copies sort as the originals did. An assistant's parent and a
    compaction's tail start point at the copies; a link to a message outside the copied range is kept as is.
    """
    fresh = [ids.new("msg") for _ in history]
    new_ids: dict[str, str] = {}
    for message, new_id in zip(history, fresh, strict=True):
        new_ids.setdefault(message.info.id, new_id)  # an id an import repeats: links go to its first copy
    copies: list[m.MessageWithParts] = []
    for message, new_id in zip(history, fresh, strict=True):
        info = evolve(message.info, id=new_id, session_id=session_id)
        if isinstance(info, m.AssistantMessage):
            info = evolve(info, parent_id=new_ids.get(info.parent_id, info.parent_id))
        parts = [_copy_part(part, ids.new("prt"), info.id, session_id, new_ids) for part in message.parts]
        copies.append(m.MessageWithParts(info, parts))
    return copies


def _copy_part(part: m.Part, part_id: str, message_id: str, session_id: str, new_ids: Mapping[str, str]) -> m.Part:
    copy = evolve(part, id=part_id, message_id=message_id, session_id=session_id)
    if isinstance(copy, m.CompactionPart) and copy.tail_start_id is not None:
        copy = evolve(copy, tail_start_id=new_ids.get(copy.tail_start_id, copy.tail_start_id))
    return copy
