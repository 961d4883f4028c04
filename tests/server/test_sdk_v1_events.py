"""The SDK's default import (the v1 client, which splits the event stream on "\\n\\n" only) follows a turn and a
permission question on `strata serve`, as it does on `opencode serve`; and the stream is framed as OpenCode
frames it, each event `data: ...\\n\\n` with no carriage returns.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest
from server_harness import OPENCODE, ORACLE, ServeFactory, opencode_serve, run_sdk_script, sdk_missing

HERE = Path(__file__).parent
EVENTS_V1 = HERE / "sdk" / "events-v1.mjs"
SCRIPT = json.loads((HERE / "sdk" / "contract-script.json").read_text(encoding="utf-8"))[:3]
"""Hello there., then a bash call that asks, then Ran it."""


def run_events_v1(url: str) -> subprocess.CompletedProcess[str]:
    return run_sdk_script(EVENTS_V1, url)


@pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")
def test_the_default_sdk_import_follows_a_turn_and_a_permission_question(serve: ServeFactory) -> None:
    server = serve(SCRIPT)
    done = run_events_v1(server.url)
    assert done.returncode == 0, done.stderr + done.stdout + "".join(server.output)
    assert done.stdout.startswith("events-v1: ok")
    assert "message.part.delta" in done.stdout and "session.idle" in done.stdout


@pytest.mark.slow
@pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")
@pytest.mark.opencode_live
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_the_same_script_passes_against_opencode_serve(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    with opencode_serve(tmp_path, script) as server:
        done = run_events_v1(server.url)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.startswith("events-v1: ok")


@pytest.mark.parametrize("route", ["/event", "/global/event"])
def test_each_event_is_framed_with_bare_newlines(serve: ServeFactory, route: str) -> None:
    server = serve([{"text": "Hello there."}])
    with httpx.Client(base_url=server.url, timeout=10) as client, client.stream("GET", route) as response:
        raw = b""
        for chunk in response.iter_raw():
            raw += chunk
            if b"\n\n" in raw:
                break
    first, _, _ = raw.partition(b"\n\n")
    assert b"\r" not in raw
    assert first.startswith(b"data: ") and b"server.connected" in first
