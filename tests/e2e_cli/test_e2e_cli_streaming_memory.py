"""A long answer streamed in small deltas needs memory proportional to its length, not to its length times
the number of deltas: `strata run` limited to 1 GiB of address space prints a 1 MB answer streamed in
10,000 deltas whole. (When every delta published a snapshot of the whole part, this run needed about 5 GB.)"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

from cli_harness import RUN_TIMEOUT, STRATA, Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
ADDRESS_SPACE_LIMIT = 1024 * 1024 * 1024
"""Several times what the run needs (it passes at 350 MiB), a fraction of what it needed per delta."""
ANSWER = "w" * 1_000_000

LIMITED_EXEC = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
os.execv(sys.argv[2], sys.argv[2:])
"""


def test_a_1_mb_answer_in_10_000_deltas_streams_within_a_bounded_address_space(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": ANSWER, "chunk_size": 100}])
    write_config(cli.project, mock_provider_config(server.base_url))
    argv = [sys.executable, "-c", LIMITED_EXEC, str(ADDRESS_SPACE_LIMIT), str(STRATA), "run", "write at length"]
    result = subprocess.run(
        argv, cwd=cli.project, env=dict(cli.env), capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == ANSWER + "\n"
