"""OpenCode's official SDK drives `strata serve` through a whole session, and the same script passes against
the real `opencode serve`: the test pins OpenCode's contract, not Strata's reading of it.

`sdk/contract.mjs` creates a session, prompts and waits, streams the turn's events, lists, reads, renames,
forks and deletes sessions, reads messages, edits and removes parts and messages, answers a permission
question over the API and aborts a turn that waits on one; `sdk/contract-script.json` is the model's side of it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from server_harness import OPENCODE, ORACLE, ServeFactory, opencode_serve, run_sdk_script, sdk_missing

HERE = Path(__file__).parent
CONTRACT = HERE / "sdk" / "contract.mjs"
SCRIPT = HERE / "sdk" / "contract-script.json"

pytestmark = pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")


def run_contract(url: str) -> subprocess.CompletedProcess[str]:
    return run_sdk_script(CONTRACT, url)


def test_the_sdk_drives_strata_serve_through_a_session(serve: ServeFactory) -> None:
    server = serve(json.loads(SCRIPT.read_text(encoding="utf-8")))
    done = run_contract(server.url)
    assert done.returncode == 0, done.stderr + done.stdout + "".join(server.output)
    assert done.stdout.strip().startswith("contract: ok")


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_the_same_script_passes_against_opencode_serve(tmp_path: Path) -> None:
    with opencode_serve(tmp_path, SCRIPT, {"notes.txt": "hi\n"}) as server:
        done = run_contract(server.url)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip().startswith("contract: ok")
