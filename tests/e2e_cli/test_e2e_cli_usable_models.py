"""`strata models` lists only what can be called now: a local server counts when it answers; `--all` says why
the rest cannot be used."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

from cli_harness import Cli

from strata_providers.testing import ScriptedServer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_local_server_that_does_not_answer_is_not_listed_and_all_says_why(cli: Cli) -> None:
    port = free_port()
    env = {"STRATA_LOCAL_SERVERS": f"lmstudio=127.0.0.1:{port}"}
    listed = cli("models", extra_env=env)
    assert listed.returncode == 0 and "lmstudio/" not in listed.stdout
    every = cli("models", "lmstudio", "--all", extra_env=env)
    lines = every.stdout.splitlines()
    assert lines and all(
        line.endswith(f"(no server answered at http://127.0.0.1:{port}/v1 (start it, or configure provider.lmstudio))")
        for line in lines
    )
    rows = json.loads(cli("models", "lmstudio", "--all", "--json", extra_env=env).stdout)
    assert rows and {(row["usable"], row["unusable_because"] is not None) for row in rows} == {(False, True)}


def test_a_local_server_that_answers_is_listed_with_what_it_serves(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([])
    address = server.base_url.removeprefix("http://").split("/")[0]
    listed = cli("models", "lmstudio", extra_env={"STRATA_LOCAL_SERVERS": f"lmstudio={address}"})
    assert listed.returncode == 0
    assert "lmstudio/scripted" in listed.stdout.splitlines()
    assert "(" not in listed.stdout  # usable models carry no reason


def test_a_provider_without_its_key_is_listed_only_with_all_and_the_variable_to_set(cli: Cli) -> None:
    assert "anthropic/" not in cli("models").stdout
    every = cli("models", "anthropic", "--all").stdout.splitlines()
    assert every and all(line.endswith("(no key: set ANTHROPIC_API_KEY)") for line in every)
    keyed = cli("models", "anthropic", extra_env={"ANTHROPIC_API_KEY": "k"}).stdout.splitlines()
    assert keyed and all("(" not in line for line in keyed)
