"""`strata acp` costs the other commands nothing: `strata run` and `strata --help` never import the protocol
library or the ACP package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cli_harness import mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

RUN = "import sys; from strata_cli.main import main; main(sys.argv[1:])"


def loaded_by(args: list[str], project: Path, env: dict[str, str]) -> list[str]:
    """The ACP modules a real `strata ARGS` imported (`-X importtime` lists every import, whatever the exit)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", RUN, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert "strata_cli.main" in imported, done.stderr[-2000:]
    return sorted(module for module in imported if module.split(".")[0] in ("acp", "strata_acp"))


def test_strata_run_and_help_import_nothing_of_acp(project: Path, env: dict[str, str]) -> None:
    with ScriptedServer([{"text": "Hello."}]) as server:
        write_config(project, mock_provider_config(server.base_url))
        assert loaded_by(["run", "say hello"], project, env) == []
        assert server.turns_used == 1
    assert loaded_by(["--help"], project, env) == []
