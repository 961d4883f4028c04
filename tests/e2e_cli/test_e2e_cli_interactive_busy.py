"""The interactive mode on a session another process is writing: it says so, waits, then goes on."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from cli_harness import Cli, mock_provider_config, write_config
from pty_terminal import Terminal

from strata_core.session.lease import FileLeases
from strata_providers.testing import ScriptedServer


def test_a_busy_session_is_waited_for_with_a_message_and_then_answered(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer], terminal: Callable[..., Terminal]
) -> None:
    server = scripted([{"text": "First answer."}, {"text": "Answered after the wait."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "hello").returncode == 0
    (session,) = json.loads(cli("session", "list", "--json").stdout)
    (database,) = (cli.project.parent / "home").rglob("strata.db")
    leases = FileLeases(database.with_name(database.name + "-leases"))

    async def while_another_process_writes() -> None:
        async with leases.hold(session["id"]):  # this test process is the other writer
            term = terminal("-s", session["id"])
            await anyio.to_thread.run_sync(lambda: term.expect("build >"))
            term.send("go on\r")
            await anyio.to_thread.run_sync(lambda: term.expect("is busy in another strata process; waiting"))
            assert len(server.main_requests) == 1  # nothing sent while the other writer holds the session
        await anyio.to_thread.run_sync(lambda: term.expect("Answered after the wait."))

    anyio.run(while_another_process_writes)
    assert len(server.main_requests) == 2
