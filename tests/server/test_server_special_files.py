"""The file routes refuse FIFOs (and other non-regular files) with a 400, without ever opening one: a FIFO
opened for reading blocks until something writes to it, and enough such requests would stall every route."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest
from cli_harness import STRATA
from server_harness import ServeFactory, running_server

REQUEST_TIMEOUT = 20.0
"""Only so a request that hangs fails the test instead of stalling it; no request here should wait at all."""
MORE_THAN_THE_THREAD_POOL = 45
"""anyio runs blocking work in at most 40 threads: this many blocked reads would have taken them all."""


def test_a_fifo_is_refused_and_the_server_keeps_answering(serve: ServeFactory, project: Path) -> None:
    os.mkfifo(project / "fifo")
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=REQUEST_TIMEOUT) as client:
        content = [client.get("/file/content", params={"path": "fifo"}) for _ in range(MORE_THAN_THE_THREAD_POOL)]
        listing = client.get("/file", params={"path": "fifo"})
        found = client.get("/find", params={"pattern": "hi"})
        named = client.get("/find/file", params={"query": "notes"})
        session = client.post("/session", json={}).json()["id"]
        prompt = client.post(
            f"/session/{session}/message",
            json={"parts": [{"type": "file", "mime": "text/plain", "url": (project / "fifo").as_uri()}]},
        )
        messages = client.get(f"/session/{session}/message")
        regular = client.get("/file/content", params={"path": "notes.txt"})

    assert {(r.status_code, r.json()["name"]) for r in content} == {(400, "BadRequest")}
    refusal = content[0].json()["data"]["message"]
    assert refusal == "fifo is a FIFO (named pipe), not a regular file; only regular files are read."
    assert listing.status_code == 400 and "FIFO" in listing.json()["data"]["message"]
    assert found.status_code == 200 and [m["path"]["text"] for m in found.json()] == ["notes.txt"]
    assert named.status_code == 200 and "notes.txt" in named.json()
    assert prompt.status_code == 400 and "FIFO (named pipe)" in prompt.json()["data"]["message"]
    assert messages.json() == []
    assert regular.json() == {"type": "text", "content": "hi\n"}


def test_a_file_the_os_will_not_open_is_a_403_naming_why(project: Path, env: dict[str, str]) -> None:
    """Served by a process the mode bits apply to (root without its override capabilities, as a user's is)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv is None:
        pytest.skip("running as root without setpriv: nothing here can make the OS deny root access")
    held = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 and setpriv else []
    (project / "locked.txt").write_text("secret\n")
    (project / "locked.txt").chmod(0)
    with running_server(project, env, command=[*held, str(STRATA), "serve", "--port", "0"]) as server:
        locked = httpx.get(f"{server.url}/file/content", params={"path": "locked.txt"}, timeout=REQUEST_TIMEOUT)
        readable = httpx.get(f"{server.url}/file/content", params={"path": "notes.txt"}, timeout=REQUEST_TIMEOUT)
    assert (locked.status_code, locked.json()["name"]) == (403, "ForbiddenError"), locked.text
    assert "permission denied" in locked.json()["data"]["message"].lower()
    assert readable.json() == {"type": "text", "content": "hi\n"}
