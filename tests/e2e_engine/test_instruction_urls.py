"""Instruction URLs in a real turn: a URL is fetched once per turn, whatever the number of steps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engine_harness import Script, ask, engine, scripted
from loopback_text_server import LoopbackTextServer

from strata_core.context.instruction import HttpUrlFetcher
from strata_core.runtime import overrides


@pytest.fixture
def hanging() -> Iterator[LoopbackTextServer]:
    """An instruction server that never answers."""
    server = LoopbackTextServer(lambda path: (200, "never sent"), hangs=lambda path: True)
    yield server
    server.close()


@pytest.mark.anyio
async def test_a_hanging_url_is_fetched_once_in_a_three_step_turn(
    project: Path, env: dict[str, str], hanging: LoopbackTextServer
) -> None:
    url = hanging.url("/team-rules.md")
    script: Script = [
        {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"filePath": str(project / "notes.txt")}}]},
        {"text": "Read them."},
        {"text": "Second turn."},
    ]
    extra = {"instructions": [url]}
    with overrides(url_fetcher=HttpUrlFetcher(timeout=0.3)):  # the client gives up quickly: the test need not wait
        async with scripted(script) as server, engine(project, env, server, extra_config=extra) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(ask(session.id, "read the notes"))
            assert len(server.main_requests) == 3 and hanging.requests == ["/team-rules.md"]
            await rt.loop.prompt(ask(session.id, "again"))
    assert hanging.requests == ["/team-rules.md"] * 2  # the next turn asks again
    assert all(url not in str(request.body) for request in server.main_requests)
