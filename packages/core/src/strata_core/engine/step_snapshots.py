"""A step's two snapshots and what changed between them, as OpenCode records them.

The snapshot a step starts from is taken in the background while the request goes out; the step-start part
waits for it (before any tool runs). When the step's tools have ended, its step-finish part carries the
snapshot of that moment and, if files differ, a `patch` part names them with the starting snapshot's hash.
"""

from __future__ import annotations

import anyio
from attrs import define, field

from strata_core.engine.part_writer import PartWriter
from strata_core.message import PatchPart, StepFinishPart
from strata_core.snapshot.contract import Snapshot


@define
class StepSnapshots:
    """The snapshots of one step; None for each when snapshots are off or failed."""

    snapshots: Snapshot
    _started: anyio.Event = field(factory=anyio.Event, init=False)
    _start: str | None = field(default=None, init=False)

    async def take_start(self) -> None:
        try:
            self._start = await self.snapshots.track()
        finally:
            self._started.set()

    async def start(self) -> str | None:
        await self._started.wait()
        return self._start

    async def finish(self, write: PartWriter, finish: StepFinishPart) -> bool:
        """Store `finish` with the snapshot of now, then the step's `patch` part; whether files changed."""
        before = await self.start()
        finish.snapshot = await self.snapshots.track() if before is not None else None
        await write.part(finish)
        if before is None or finish.snapshot is None:
            return False
        patch = await self.snapshots.patch(before, finish.snapshot)
        if patch.files:
            await write.part(PatchPart(**write.new_part_ids(), hash=patch.hash, files=list(patch.files)))
        return bool(patch.files)
