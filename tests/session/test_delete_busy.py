"""Deleting a session takes the lease of every session of its tree: one with a turn running (its lease held) makes
the delete `SessionBusyError`, and nothing of the tree is deleted."""

from __future__ import annotations

import pytest

from strata_core.clock import FrozenClock
from strata_core.ids import Ids
from strata_core.session.lease import SessionBusyError
from strata_core.session.service import SessionService
from strata_core.session.store import SessionStore

pytestmark = pytest.mark.anyio

NOW = 1_780_000_000_000


@pytest.mark.parametrize("running", ["parent", "child"])
async def test_a_session_whose_tree_has_a_turn_running_is_not_deleted(store: SessionStore, running: str) -> None:
    svc = SessionService(store, "strata-project", "/work/here", clock=FrozenClock(NOW), ids=Ids(FrozenClock(NOW)))
    parent = await svc.create()
    child = await svc.create(parent_id=parent.id)
    held = parent if running == "parent" else child

    async with store.lease(held.id):
        with pytest.raises(SessionBusyError, match=f"session is busy: {held.id}"):
            await svc.delete(parent.id)
        assert {s.id for s in await store.list_sessions()} == {parent.id, child.id}

    await svc.delete(parent.id)
    assert await store.list_sessions() == []
