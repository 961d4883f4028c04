"""A `.env` file a rule lets the tools show reaches the model while the process runs, and is never stored,
published or summarised: the store, the bus and the compaction summary request carry a placeholder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted

from strata_core.bus import Bus, PartUpdated
from strata_core.secret_outputs import secret_placeholder

VALUE = "tok-0123456789-secret"


@pytest.mark.anyio
async def test_a_secret_shown_by_read_grep_and_edit_stays_out_of_store_bus_and_summary(
    project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    (project / ".env").write_text(f"API_TOKEN={VALUE}\n")
    read = {"name": "read", "arguments": {"filePath": str(project / ".env")}}
    grep = {"name": "grep", "arguments": {"pattern": "API_TOKEN", "path": ".env"}}
    edit = {"name": "edit", "arguments": {"filePath": ".env", "oldString": "API_TOKEN", "newString": "API_KEY"}}
    script: Script = [
        {"tool_calls": [read, grep]},
        {"tool_calls": [edit]},
        {"text": "Noted.", "usage": {"input": 9_500, "output": 100}},  # past the limit: compaction follows
        {"text": "## Goal\n- use the token"},
        {"text": "Carrying on."},
    ]
    allowed = {"permission": {"read": {"*.env": "allow"}}}  # nobody is asked: the rule says yes
    limit = {"context": 10_000, "output": 1_000}
    async with (
        scripted(script) as server,
        engine(project, env, server, extra_config=allowed, limit=limit) as runtime,
        runtime.bus.subscribe() as events,
    ):
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "check the token"))
        published = [repr(e.part) for e in Bus.waiting(events) if isinstance(e, PartUpdated)]
    bodies = [json.dumps(r.body) for r in server.main_requests]
    assert len(bodies) == 5 and (project / ".env").read_text() == f"API_KEY={VALUE}\n"
    assert bodies[1].count(VALUE) == 2 and VALUE in bodies[2]  # read's and grep's results, in this process
    summary = bodies[3]
    assert VALUE not in summary and json.dumps(secret_placeholder([".env"]))[1:-1] in summary
    assert published and not [event for event in published if VALUE in event]
    assert _files_holding(VALUE, tmp_path, besides=project) == []


def _files_holding(value: str, root: Path, besides: Path) -> list[Path]:
    """Files under `root` but outside `besides` whose bytes hold `value` (the database, its WAL, the home)."""
    kept = [p for p in root.rglob("*") if p.is_file() and besides not in p.parents]
    assert any(p.name == "strata.db" for p in kept)
    return [p for p in kept if value.encode() in p.read_bytes()]
