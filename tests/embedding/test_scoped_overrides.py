"""`overrides(...)`: the runtime keywords for a scope, as a test sets them around the code it tests; reset on
exit, nestable, and winning over the keywords of the `open_runtime` call inside."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.clock import FrozenClock
from strata_core.permission.approval import approve_all
from strata_core.runtime import Runtime, open_runtime, overrides
from strata_core.session.memory_store import MemorySessionStore
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio


async def _application(project: Path, home: Path) -> tuple[int, Runtime]:
    """The code under test: it opens its own runtime on its own SQLite file, as an application would."""
    resolver = ScriptedResolver(ScriptedModel())
    async with open_runtime(project, {"HOME": str(home)}, models=resolver, store=home / "app.db") as runtime:
        session = await runtime.sessions.create()
        return session.time.created, runtime


async def test_an_override_reaches_a_runtime_opened_inside_and_is_gone_after(tmp_path: Path) -> None:
    clock = FrozenClock(1_800_000_000_000)
    async with MemorySessionStore.open() as store:
        with overrides(clock=clock, store=store):
            created, runtime = await _application(tmp_path, tmp_path)
            assert created == clock.ms and runtime.store is store  # over the application's own store=
        assert [s.time.created for s in await store.list_sessions()] == [clock.ms]
    assert not (tmp_path / "app.db").exists()
    created, runtime = await _application(tmp_path, tmp_path)
    assert created != clock.ms and (tmp_path / "app.db").is_file()  # reset: the application's own choices


async def test_overrides_nest_the_inner_one_winning_and_each_exit_restores_the_outer(tmp_path: Path) -> None:
    outer, inner = FrozenClock(1_700_000_000_000), FrozenClock(1_900_000_000_000)
    with overrides(clock=outer, store="memory"):
        with overrides(clock=inner, approver=approve_all):
            created, runtime = await _application(tmp_path, tmp_path)
            assert created == inner.ms and runtime.approver is approve_all
        created, runtime = await _application(tmp_path, tmp_path)
        assert created == outer.ms and runtime.approver is not approve_all
    assert not (tmp_path / "app.db").exists()
