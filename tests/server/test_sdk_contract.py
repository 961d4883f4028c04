"""OpenCode's official SDK drives `strata serve` through a whole session, and the same script passes against
the real `opencode serve`: the test pins OpenCode's contract, not Strata's reading of it.

`sdk/contract.mjs` creates a session, prompts and waits, streams the turn's events, lists, reads, renames,
forks and deletes sessions, reads messages, edits and removes parts and messages, answers a permission
question over the API and aborts a turn that waits on one; `sdk/contract-script.json` is the model's side of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_harness import mock_provider_config
from server_harness import ASK_BASH, OPENCODE, ORACLE, ORACLE_CACHE, ServeFactory, running_server, sdk_dir, sdk_missing

HERE = Path(__file__).parent
CONTRACT = HERE / "sdk" / "contract.mjs"
SCRIPT = HERE / "sdk" / "contract-script.json"
SDK_TIMEOUT = 120

pytestmark = pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")


def run_contract(url: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None
    env = {"PATH": os.environ.get("PATH", ""), "STRATA_SDK_DIR": str(sdk_dir())}
    return subprocess.run(
        [node, str(CONTRACT), url], env=env, capture_output=True, text=True, timeout=SDK_TIMEOUT, check=False
    )


def test_the_sdk_drives_strata_serve_through_a_session(serve: ServeFactory) -> None:
    server = serve(json.loads(SCRIPT.read_text(encoding="utf-8")))
    done = run_contract(server.url)
    assert done.returncode == 0, done.stderr + done.stdout + "".join(server.output)
    assert done.stdout.strip().startswith("contract: ok")


@pytest.mark.slow
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_the_same_script_passes_against_opencode_serve(tmp_path: Path) -> None:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    config = {**mock_provider_config("http://127.0.0.1:__PORT__/v1"), "permission": ASK_BASH}
    (fixture / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    (fixture / "notes.txt").write_text("hi\n", encoding="utf-8")
    command = ["bash", str(ORACLE / "serve.sh"), str(fixture), str(SCRIPT)]
    env = {**os.environ, "STRATA_ORACLE_CACHE": str(ORACLE_CACHE), "TMPDIR": str(tmp_path)}
    # serve.sh prints `opencode serve: URL ...`; the harness reads the URL after "listening on " or this.
    with running_server(fixture, env, command=command, listening="opencode serve: ") as server:
        done = run_contract(server.url)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip().startswith("contract: ok")
