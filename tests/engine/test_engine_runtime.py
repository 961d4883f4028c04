"""The container declares, the runtime opens: what each does and does not do."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from dependency_injector import providers
from engine_fakes import FakeResolver

from strata_core.container import CoreContainer
from strata_core.engine.loop import SessionLoop
from strata_core.permission.approval import Refuser, approve_all
from strata_core.runtime import open_runtime
from strata_core.session.memory_store import MemorySessionStore
from strata_providers.testing import ScriptedModel


def test_the_container_builds_the_loop_without_touching_the_disk(tmp_path: Path) -> None:
    missing = tmp_path / "does-not-exist"
    container = CoreContainer()
    container.directory.override(providers.Object(missing))
    container.store.override(providers.Object(MemorySessionStore()))
    container.models.override(providers.Object(FakeResolver({})))
    container.project_id.override(providers.Object("p"))
    loop = container.loop()
    assert isinstance(loop, SessionLoop)
    assert loop.steps.registry is container.registry()
    assert not missing.exists()


@pytest.mark.anyio
async def test_the_runtime_keeps_sessions_in_sqlite_under_the_data_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    model = ScriptedModel([{"text": "ok"}])
    async with open_runtime(project, env, models=FakeResolver({model.info.ref: model})) as runtime:
        session = await runtime.sessions.create()
        assert runtime.project.directory == project.resolve()
    assert (tmp_path / "data" / "strata" / "strata.db").is_file()
    async with open_runtime(project, env, models=FakeResolver({})) as runtime:
        assert [s.id for s in await runtime.sessions.list_sessions()] == [session.id]


@pytest.mark.anyio
async def test_each_runtime_has_its_own_services(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    async with (
        open_runtime(tmp_path, env, models=FakeResolver({}), store="memory") as first,
        open_runtime(tmp_path, env, models=FakeResolver({}), store="memory", approver=approve_all) as second,
    ):
        assert first.bus is not second.bus and first.loop is not second.loop
        assert first.permissions is not second.permissions
        assert isinstance(first.approver, Refuser) and second.approver is approve_all


@pytest.mark.anyio
async def test_opening_the_runtime_removes_tool_outputs_older_than_seven_days(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    saved = tmp_path / "data" / "strata" / "tool-output"
    saved.mkdir(parents=True)
    old, fresh = saved / "tool_old", saved / "tool_fresh"
    for path in (old, fresh):
        path.write_text("output")
    eight_days_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (eight_days_ago, eight_days_ago))
    async with open_runtime(tmp_path, env, models=FakeResolver({}), store="memory"):
        pass  # the cleanup runs in the background; leaving the runtime waits for it
    assert not old.exists() and fresh.exists()
