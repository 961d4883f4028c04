"""OpenCode's own `opencode run --attach URL` prints the answer of a turn it runs on `strata serve`, every time.

It reads the turn from the event stream but ends as soon as its prompt is answered, so a server that answers a
fast turn before the stream's events reach it makes it print nothing (it did in most runs, before the server
waited for its event streams: `EventHub.delivered`). Ten runs: with that race lost in most runs, ten that all
print their answer leave it well under a one-in-a-thousand chance of going unseen, at half the OpenCode CPU
of the twenty this test used to make (~1.3 s each).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from server_harness import OPENCODE, ServeFactory

RUNS = 10


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
def test_opencode_run_attach_prints_every_answer(serve: ServeFactory, tmp_path: Path) -> None:
    server = serve([{"text": f"Hello number {n}."} for n in range(RUNS)])
    home = tmp_path / "opencode-home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    printed = []
    for _ in range(RUNS):
        done = subprocess.run(
            [str(OPENCODE), "run", "--attach", server.url, "say hello"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        printed.append(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "")
    assert printed == [f"Hello number {n}." for n in range(RUNS)]
