"""`strata run` in a project holding a file whose name is not UTF-8 (Latin-1 `caf\\xe9.txt`): the run answers."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_a_run_beside_a_latin_1_file_name_prints_the_answer(cli: Cli, scripted: Scripted) -> None:
    (cli.project / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"")
    server = scripted([{"text": "Hello."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello.\n"
    assert (cli.project / os.fsdecode(b"caf\xe9.txt")).read_bytes() == b""
