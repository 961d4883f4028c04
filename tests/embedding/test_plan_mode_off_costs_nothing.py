"""Experimental plan mode is a feature nobody turned on by default: while its flag is off, building the core
imports none of its modules, and the container gives neither its service nor its tool."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PLAN_MODULES = {"strata_core.engine.plan_mode", "strata_core.tool.builtin.plan_exit", "strata_core.context.plan_file"}

PROBE = """
import json, sys
from pathlib import Path
from dependency_injector import providers
from strata_core.container import CoreContainer
from strata_core.permission.bus_approver import BusApprover
from strata_core.session.memory_store import MemorySessionStore

env = json.loads(sys.argv[2])
c = CoreContainer()
c.directory.override(providers.Object(Path(sys.argv[1])))
c.env.override(providers.Object(env))
c.store.override(providers.Object(MemorySessionStore()))
c.project_id.override(providers.Object("project"))
c.approver.override(providers.Object(BusApprover(c.bus())))  # someone answers: plan_exit may be offered
built = {"plan_mode": c.plan_mode() is not None, "plan_exit": c.plan_exit() is not None}
print(json.dumps({"built": built, "loaded": sorted(m for m in sys.modules if m in set(sys.argv[3:]))}))
"""


def _probe(tmp_path: Path, env: dict[str, str]) -> dict[str, object]:
    env = {"HOME": str(tmp_path), **env}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path), json.dumps(env), *sorted(PLAN_MODULES)],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_with_the_flag_off_nothing_of_plan_mode_is_built_or_imported(tmp_path: Path) -> None:
    assert _probe(tmp_path, {}) == {"built": {"plan_mode": False, "plan_exit": False}, "loaded": []}


def test_with_the_flag_on_the_container_builds_both(tmp_path: Path) -> None:
    found = _probe(tmp_path, {"STRATA_EXPERIMENTAL_PLAN_MODE": "1"})
    loaded = found["loaded"]
    assert found["built"] == {"plan_mode": True, "plan_exit": True} and isinstance(loaded, list)
    assert set(loaded) >= {"strata_core.engine.plan_mode", "strata_core.tool.builtin.plan_exit"}
