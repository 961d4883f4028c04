"""Nothing a shell command starts outlives the call (issue 13): background jobs, `nohup`, `setsid` and double
forks are gone once the call returns, whether it ended by itself, by its timeout or by an abort; inside the
sandbox (its PID namespace) and outside it (the reaper), and when the sandbox is unavailable."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import anyio
import pytest
from process_probe import processes_with_argument
from sandbox_kit import MISSING_BWRAP, Site, bash_tool, needs_bwrap, run_bash, tool_context

from strata_core.config.schema import SandboxMode
from strata_core.tool.builtin.bash import BashTool

pytestmark = pytest.mark.anyio

_markers = itertools.count(1)
LEFT_BEHIND = {
    "background": "sleep {m} &",
    "nohup": "nohup sleep {m} >/dev/null 2>&1 &",
    "setsid": "setsid sleep {m} >/dev/null 2>&1 < /dev/null &",
    "double-fork": "( ( sleep {m} >/dev/null 2>&1 & ) & )",
}


def marker() -> str:
    """A sleep duration no other process uses, so the host's /proc shows exactly the ones this test started."""
    return f"33.{next(_markers):04d}{id(object()) % 1000:03d}"


def tools(site: Site, monkeypatch: pytest.MonkeyPatch, mode: str) -> BashTool:
    if mode == "unavailable":
        monkeypatch.setenv("STRATA_BWRAP", MISSING_BWRAP)
        return bash_tool(site, "workspace-write", settings_env={"STRATA_BWRAP": MISSING_BWRAP})
    chosen: SandboxMode = "danger-full-access" if mode == "danger-full-access" else "workspace-write"
    return bash_tool(site, chosen)


MODES = [
    pytest.param("workspace-write", marks=needs_bwrap),
    "danger-full-access",
    "unavailable",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", LEFT_BEHIND.values(), ids=LEFT_BEHIND.keys())
async def test_nothing_started_outlives_a_command_that_ends_by_itself(
    site: Site, monkeypatch: pytest.MonkeyPatch, mode: str, form: str
) -> None:
    m = marker()
    result = await run_bash(tools(site, monkeypatch, mode), site, form.format(m=m) + "\necho started")
    assert "started" in result.output and result.metadata["exit"] == 0
    assert processes_with_argument(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_nothing_started_outlives_a_timeout(site: Site, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    m = marker()
    forms = "".join(form.format(m=m) + "\n" for form in LEFT_BEHIND.values())
    result = await run_bash(tools(site, monkeypatch, mode), site, f"{forms}sleep 30", timeout=500)
    assert result.metadata["exit"] is None
    assert processes_with_argument(m) == []


@pytest.mark.parametrize("mode", MODES)
async def test_nothing_started_outlives_an_abort(site: Site, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    m = marker()
    forms = "".join(form.format(m=m) + "\n" for form in LEFT_BEHIND.values())
    tool = tools(site, monkeypatch, mode)
    started = anyio.Event()

    def watch(title: str | None, metadata: Mapping[str, Any]) -> None:
        if "ready" in str(metadata.get("output", "")):
            started.set()

    async with anyio.create_task_group() as group:
        context = tool_context(site, updates=watch)
        group.start_soon(tool.execute, {"command": f"{forms}sleep 0.2; echo ready; sleep 30"}, context)
        with anyio.fail_after(10):
            await started.wait()
        assert len(processes_with_argument(m)) == len(LEFT_BEHIND)
        group.cancel_scope.cancel()
    assert processes_with_argument(m) == []
