"""A step's two snapshots and what changed between them, as OpenCode records them.

The snapshot a step starts from is the previous step's finish when the turn's previous step was a model
step (nothing else ran in between), and is otherwise taken in the background while the request goes out; the
step-start part waits for it (before any tool runs). When the step's tools have ended, its step-finish part
carries the snapshot of that moment and, if files differ, a `patch` part names them with the starting
snapshot's hash. So a turn scans the worktree once at its start and once after each step that ran tools.
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
    _start: str | None = None
    """Given when the previous step's finish is this step's start; taken by `take_start` otherwise."""
    _started: anyio.Event = field(factory=anyio.Event, init=False)

    async def take_start(self) -> None:
        try:
            if self._start is None:
                self._start = await self.snapshots.track()
        finally:
            self._started.set()

    async def start(self) -> str | None:
        await self._started.wait()
        return self._start

    async def finish(self, write: PartWriter, finish: StepFinishPart, *, ran_tools: bool) -> None:
        """Store `finish` with the snapshot of now.

        A step that ran no tool changed nothing of the agent's making, so it finishes on the snapshot it
        started from without a scan (a text answer costs no git process at its end); what the user changed
        meanwhile is in the next turn's first snapshot, which is never the agent's.
        """
        before = await self.start()
        finish.snapshot = before if before is None or not ran_tools else await self.snapshots.track()
        await write.part(finish)

    async def patch(self, write: PartWriter, finish: StepFinishPart) -> bool:
        """The step's `patch` part, naming the files that differ between its two snapshots; whether any do."""
        before = await self.start()
        if before is None or finish.snapshot is None or finish.snapshot == before:
            return False
        patch = await self.snapshots.patch(before, finish.snapshot)
        if patch.files:
            await write.part(PatchPart(**write.new_part_ids(), hash=patch.hash, files=list(patch.files)))
        return bool(patch.files)
