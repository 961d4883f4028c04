"""The in-process runner the e2e CLI tests use (`cli_in_process`): a command gives what a `strata` process gives,
and the process-wide state a command changes is as it was afterwards, so the next test sees none of it."""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_core import http
from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def as_a_process(cli: Cli) -> Cli:
    return Cli(cli.project, cli.env, in_process=False)


def test_a_command_gives_the_same_code_and_output_as_a_process(cli: Cli, tmp_path: Path) -> None:
    assert cli.in_process
    for args in (("debug", "paths", "--json"), ("frobnicate",), ("debug", "config", "--dir", str(tmp_path / "no"))):
        inside, outside = cli(*args), as_a_process(cli)(*args)
        assert (inside.returncode, inside.stdout, inside.stderr) == (outside.returncode, outside.stdout, outside.stderr)
    piped = cli("session", "import", "-", stdin="not json")
    assert piped.returncode == as_a_process(cli)("session", "import", "-", stdin="not json").returncode != 0


def process_state() -> tuple[object, ...]:
    """What a `strata` command may change in its process and the in-process runner must put back."""
    return (
        dict(os.environ),
        Path.cwd(),
        (sys.stdin, sys.stdout, sys.stderr),
        (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()),
        [(name, logging.getLogger(name).level, list(logging.getLogger(name).handlers)) for name in ("", "strata_core")],
        signal.getsignal(signal.SIGINT),
    )


def test_a_run_leaves_the_process_as_it_found_it(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    http.set_loopback_only(True)
    before = process_state()

    done = cli("--strict", "run", "say hello", extra_env={"STRATA_DEBUG": "1"})

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("Hello.")
    after = process_state()
    assert after == before
    assert "STRATA_CONFIG_STRICT" not in os.environ
    assert http._loopback_only
