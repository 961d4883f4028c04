"""Experimental plan mode in the turn loop (reference 5): its reminders, stored once, and the plan file.

With `STRATA_EXPERIMENTAL_PLAN_MODE` (or `OPENCODE_EXPERIMENTAL_PLAN_MODE`, or either `_EXPERIMENTAL`
umbrella flag, as OpenCode 1.18.33 reads them) the container builds this service (`plan_mode_switch.py`; without
the flag the loop has none) and the loop calls `remind` before each model step, in place of
the default reminders that are added in memory on every step. These are stored on the last user message,
and only at a change of agent: entering plan mode states the workflow and where the plan file is (its
directory is created then); leaving it states the switch and, once the plan was written, where it is. The
loop's next steps see them in the stored history, so they are sent once and then stay, as in OpenCode.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
from attrs import define

from strata_core.bus import Bus
from strata_core.config.paths import StrataPaths
from strata_core.context.plan_file import plan_file
from strata_core.ids import Ids
from strata_core.message import MessageWithParts
from strata_core.project import Project
from strata_core.prompt.reminders import PlanModeUpdate, plan_mode_step
from strata_core.session.store import SessionStore
from strata_core.session_info import SessionInfo
from strata_core.tool.builtin.plan_exit import approved


@define
class PlanMode:
    store: SessionStore
    bus: Bus
    project: Project
    paths: StrataPaths
    ids: Ids

    async def plan_file(self, session: SessionInfo) -> Path:
        project = await self.project.info()
        return await anyio.to_thread.run_sync(plan_file, project, self.paths, session)

    async def remind(
        self, session: SessionInfo, history: Sequence[MessageWithParts], agent_name: str
    ) -> PlanModeUpdate:
        """The history with this step's plan-mode reminder, if any, already stored."""
        plan = await self.plan_file(session)
        update = await anyio.to_thread.run_sync(plan_mode_step, history, agent_name, plan, self.ids)
        for part in update.new_parts:
            await self.store.put_part(part)
            self.bus.part_updated(part)
        return update

    @staticmethod
    def handed_over(answer: MessageWithParts) -> bool:
        """Whether the step's plan_exit stored a new user message (so the loop must read the session again)."""
        return approved(answer)
