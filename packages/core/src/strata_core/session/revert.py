"""Taking a session's changes back from one message on, putting them back, and dropping them for good.

OpenCode's semantics (`SessionRevert`): `revert` puts every file the later steps patched back as it was
before them and marks the session `revert {messageID, partID?, snapshot, diff}`: the messages from there on
stay stored but clients hide them; `unrevert` puts the files back from `snapshot` (the worktree as it was
when the revert was made) and clears the mark; the next prompt drops the reverted messages for good.

What Strata adds: a file changed outside the agent since its last step (it matches neither what the agent
left nor what the revert would put back) stops the revert with its name, unless `force`; unrevert likewise
for a file changed since the revert. Unrevert puts back only the reverted files, where OpenCode checks the
whole snapshot out again over anything edited since; and a revert to a part keeps that message's earlier
parts when the reverted messages are dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from attrs import evolve, frozen

from strata_core.bus import Bus, MessageRemoved, PartRemoved, SessionUpdated
from strata_core.clock import Clock
from strata_core.errors import StrataError
from strata_core.message import MessageWithParts, Part, PatchPart, StepFinishPart, TextPart, ToolPart, UserMessage
from strata_core.session.store import SessionStore
from strata_core.session.summary import changes, store_session_totals
from strata_core.session_info import SessionInfo
from strata_core.snapshot.contract import Patch, Snapshot, by_snapshot


class RevertConflictError(StrataError):
    """A revert or unrevert would overwrite changes made outside the agent; nothing was changed."""

    def __init__(self, files: Sequence[str], *, undoing: bool) -> None:
        listed = ", ".join(files)
        since = "since the revert" if undoing else "since the agent's last step"
        super().__init__(
            f"{len(files)} file(s) changed outside the agent {since} would be overwritten: {listed}. "
            f"Nothing was changed; save those changes elsewhere, or force the {'unrevert' if undoing else 'revert'} "
            "to lose them."
        )
        self.files = tuple(files)


@frozen
class RevertPoint:
    """Where a revert starts (OpenCode's `revert.messageID` and `partID`) and the patches after it."""

    message_id: str
    part_id: str | None
    patches: tuple[Patch, ...]

    @classmethod
    def find(cls, history: Sequence[MessageWithParts], message_id: str, part_id: str | None) -> RevertPoint | None:
        """The point for reverting `message_id` (from `part_id` on, if given); None when neither is there.

        Reverting a whole assistant message, or a part with nothing said or run before it in its message,
        reverts from the user message it answers, as OpenCode does."""
        point: tuple[str, str | None] | None = None
        patches: list[Patch] = []
        last_user: str | None = None
        for message in history:
            if isinstance(message.info, UserMessage):
                last_user = message.info.id
            earlier: list[Part] = []
            for part in message.parts:
                if point is not None:
                    if isinstance(part, PatchPart):
                        patches.append(Patch(part.hash, tuple(part.files)))
                    continue
                if (message.info.id == message_id and part_id is None) or part.id == part_id:
                    said = any(isinstance(item, TextPart | ToolPart) for item in earlier)
                    kept_part = part_id if said else None
                    start = message.info.id if kept_part or last_user is None else last_user
                    point = (start, kept_part)
                earlier.append(part)
        return None if point is None else cls(point[0], point[1], tuple(patches))

    def files(self) -> list[str]:
        return sorted({path for patch in self.patches for path in patch.files})


def reverted_point(info: SessionInfo, history: Sequence[MessageWithParts]) -> RevertPoint | None:
    """The point of the revert `info` is under, if any."""
    if not info.revert or "messageID" not in info.revert:
        return None
    return RevertPoint.find(history, str(info.revert["messageID"]), info.revert.get("partID"))


@frozen
class SessionReverter:
    """Revert, unrevert and the drop of reverted messages, on a session's store and its snapshots."""

    store: SessionStore
    bus: Bus
    snapshots: Snapshot
    clock: Clock

    async def revert(
        self, info: SessionInfo, message_id: str, part_id: str | None = None, *, force: bool = False
    ) -> SessionInfo:
        history = await self.store.messages(info.id)
        point = RevertPoint.find(history, message_id, part_id)
        if point is None:
            return info
        current = await self.snapshots.track()
        earlier = reverted_point(info, history)
        snapshot = (info.revert or {}).get("snapshot") or current
        if current is not None and not force:
            last = _last_snapshot(history)
            # A file may be as the agent left it, or as this revert or the one in force puts it back.
            allowed: list[tuple[str, Sequence[str]]] = [(last, point.files())] if last else []
            allowed += by_snapshot(point.patches).items()
            allowed += _revert_results(earlier.patches) if earlier else []
            await self._refuse_outside_changes(current, point.files(), allowed, undoing=False)
        await self.snapshots.revert(point.patches)
        revert: dict[str, Any] = {"messageID": point.message_id}
        if point.part_id:
            revert["partID"] = point.part_id
        if snapshot:
            revert["snapshot"] = snapshot
            after = await self.snapshots.track()
            if after:
                revert["diff"] = await self.snapshots.diff_text(snapshot, after)
        reverted = [message for message in history if message.info.id >= point.message_id]
        await store_session_totals(self.store, self.bus, info.id, await changes(self.snapshots, reverted))
        return await self._mark(info.id, revert)

    async def unrevert(self, info: SessionInfo, *, force: bool = False) -> SessionInfo:
        history = await self.store.messages(info.id)
        point = reverted_point(info, history)
        snapshot = (info.revert or {}).get("snapshot")
        if point is not None and snapshot:
            current = await self.snapshots.track()
            if current is not None and not force:
                allowed = [(str(snapshot), point.files()), *_revert_results(point.patches)]
                await self._refuse_outside_changes(current, point.files(), allowed, undoing=True)
            await self.snapshots.restore(str(snapshot), point.files())
        await store_session_totals(self.store, self.bus, info.id, await changes(self.snapshots, history))
        return await self._mark(info.id, None)

    async def drop_reverted(self, info: SessionInfo) -> SessionInfo:
        """Delete the messages (and parts) a revert hid, and clear it: the session goes on from there.
        Called by the loop, under the session's lease, before it stores a new prompt."""
        if not info.revert:
            return info
        history = await self.store.messages(info.id)
        message_id, part_id = str(info.revert.get("messageID", "")), info.revert.get("partID")
        async with self.store.batch():
            removed = await self._drop(history, message_id, part_id)
        for event in removed:
            self.bus.publish(event)
        return await self._mark(info.id, None)

    async def _drop(
        self, history: Sequence[MessageWithParts], message_id: str, part_id: str | None
    ) -> list[MessageRemoved | PartRemoved]:
        removed: list[MessageRemoved | PartRemoved] = []
        for message in history:
            info = message.info
            if info.id < message_id:
                continue
            if info.id == message_id and part_id and any(part.id == part_id for part in message.parts):
                start = next(index for index, part in enumerate(message.parts) if part.id == part_id)
                for part in message.parts[start:]:
                    await self.store.delete_part(info.session_id, info.id, part.id)
                    removed.append(PartRemoved(info.session_id, info.id, part.id))
                continue
            await self.store.delete_message(info.session_id, info.id)
            removed.append(MessageRemoved(info.session_id, info.id))
        return removed

    async def _refuse_outside_changes(
        self, current: str, files: Sequence[str], allowed: Iterable[tuple[str, Sequence[str]]], *, undoing: bool
    ) -> None:
        """Raise naming the files whose content now matches none of the states they may be in."""
        suspects = set(files)
        for tree, paths in allowed:
            suspects &= await self.snapshots.differing(tree, current, paths) | (suspects - set(paths))
            if not suspects:
                return
        raise RevertConflictError(sorted(suspects), undoing=undoing)

    async def _mark(self, session_id: str, revert: dict[str, Any] | None) -> SessionInfo:
        info = await self.store.get_session(session_id)
        assert info is not None, session_id
        info = evolve(info, revert=revert, time=evolve(info.time, updated=self.clock.now_ms()))
        await self.store.put_session(info)
        self.bus.publish(SessionUpdated(info))
        return info


def _revert_results(patches: Sequence[Patch]) -> list[tuple[str, Sequence[str]]]:
    """Every state the revert in force may have left its files in: each patch's snapshot, for its files.

    The revert's point is found again from `revert.messageID`, which is the turn's user message even when the
    revert began at a later message of that turn (OpenCode's rule): it then reverted only a tail of these
    patches, putting each file back from the first patch of that tail that touched it, not from the first of
    all. Which tail is not recorded, so any of them is the revert's own doing, not a change from outside."""
    grouped: dict[str, set[str]] = {}
    for patch in patches:
        grouped.setdefault(patch.hash, set()).update(patch.files)
    return [(tree, sorted(paths)) for tree, paths in grouped.items()]


def _last_snapshot(history: Sequence[MessageWithParts]) -> str | None:
    """The worktree as the agent left it: the last step-finish snapshot of the session."""
    for message in reversed(history):
        for part in reversed(message.parts):
            if isinstance(part, StepFinishPart) and part.snapshot:
                return part.snapshot
    return None
