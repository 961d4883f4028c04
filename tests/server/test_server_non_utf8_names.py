"""A file whose name is not UTF-8 (Latin-1 `caf\\xe9.txt`, from an old archive) in the project served: turns
still answer, and the file tree and the file search list it with U+FFFD for the byte, as OpenCode's Node does."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
from server_harness import ServeFactory

LATIN_1 = os.fsdecode(b"caf\xe9.txt")
"""The name as Python holds it (the byte as a lone surrogate); `Path` writes it back as that byte."""
SHOWN = "caf\ufffd.txt"


def test_a_turn_answers_beside_a_latin_1_name(serve: ServeFactory, project: Path) -> None:
    (project / LATIN_1).write_bytes(b"")
    server = serve([{"text": "Hello."}])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session}/message", json={"parts": [{"type": "text", "text": "hi"}]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["info"].get("error") is None
    assert [part["text"] for part in answer.json()["parts"] if part["type"] == "text"] == ["Hello."]


def test_the_file_tree_and_search_show_a_latin_1_name_with_u_fffd(serve: ServeFactory, project: Path) -> None:
    (project / LATIN_1).write_bytes(b"")
    (project / ".gitignore").write_text("*.log\n", encoding="utf-8")
    (project / os.fsdecode(b"vieux\xe9.log")).write_bytes(b"")
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listing = client.get("/file", params={"path": ""})
        found = client.get("/find/file", params={"query": "caf"})
        every = client.get("/find/file", params={"query": "", "limit": "50"})
    assert listing.status_code == 200, listing.text
    nodes = {node["name"]: node for node in listing.json()}
    assert nodes[SHOWN] == {
        "name": SHOWN,
        "path": SHOWN,
        "absolute": str(project / SHOWN),
        "type": "file",
        "ignored": False,
    }
    assert nodes["vieux\ufffd.log"]["ignored"] is True
    assert found.status_code == 200 and found.json() == [SHOWN]
    assert every.status_code == 200 and SHOWN in every.json()
