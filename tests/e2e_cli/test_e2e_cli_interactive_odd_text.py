"""The interactive mode with typed bytes that are not UTF-8: they reach the model as U+FFFD, the session goes on."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, user_text, write_config
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_typed_bytes_that_are_not_utf8_are_sent_as_replacements(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    server = scripted([{"text": "Got the menu."}, {"text": "Still here."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build · mock/gpt-4o-mock")
    term.send("caf")
    os.write(term.child.child_fd, b"\xe9")  # Latin-1 typed into a UTF-8 terminal: not UTF-8
    term.send(" menu\r")
    term.expect("Got the menu.")
    term.expect("build >")
    assert user_text(server.main_requests[0].body).startswith("caf\ufffd menu")
    term.send("and now?\r")
    term.expect("Still here.")
