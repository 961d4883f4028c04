"""Experimental plan mode costs nothing while it is off: the composition root builds its pieces through these
two functions, which import the plan-mode service and the `plan_exit` tool only when the flag turns the mode
on (a feature nobody configured adds no import to a run's start-up)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from strata_core.prompt.reminders import experimental_plan_mode

if TYPE_CHECKING:
    from strata_core.bus import Bus
    from strata_core.clock import Clock
    from strata_core.config.paths import StrataPaths
    from strata_core.engine.plan_mode import PlanMode
    from strata_core.ids import Ids
    from strata_core.permission.approval import Approver
    from strata_core.permission.flow import Permission
    from strata_core.project import Project
    from strata_core.session.store import SessionStore
    from strata_core.tool.contract import Tool


def plan_mode_if_enabled(
    *, env: Mapping[str, str], store: SessionStore, bus: Bus, project: Project, paths: StrataPaths, ids: Ids
) -> PlanMode | None:
    """The loop's plan-mode service with the flag on; None (and nothing imported) with it off."""
    if not experimental_plan_mode(env):
        return None
    from strata_core.engine.plan_mode import PlanMode

    return PlanMode(store=store, bus=bus, project=project, paths=paths, ids=ids)


def plan_exit_if_offered(
    *,
    env: Mapping[str, str],
    approver: Approver,
    permissions: Permission,
    store: SessionStore,
    bus: Bus,
    project: Project,
    paths: StrataPaths,
    clock: Clock,
    ids: Ids,
) -> Tool | None:
    """The `plan_exit` tool where plan mode offers it (`plan_exit_offered`); None, importing nothing, otherwise."""
    if not experimental_plan_mode(env):
        return None
    from strata_core.permission.approval import asks_someone
    from strata_core.tool.builtin.plan_exit import PlanExitTool, plan_exit_offered

    if not plan_exit_offered(env, asks_someone(approver)):
        return None
    return PlanExitTool(
        permissions=permissions, store=store, bus=bus, project=project, paths=paths, clock=clock, ids=ids
    )
