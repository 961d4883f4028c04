"""`/mcp`, `/lsp`, `/formatter`, `/find/symbol` and `/file/status`: the runtime's own services and git, in
OpenCode 1.18.33's shapes, and the empty answers OpenCode gives where nothing runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from lsp_tools import FAKE_SERVER
from mcp_servers import fixture_server
from server_harness import ServeFactory, schema_problems

ALLOW = {"*": "allow"}


def project_config(project: Path, config: dict[str, Any]) -> None:
    (project / ".opencode").mkdir(exist_ok=True)
    (project / ".opencode/opencode.json").write_text(json.dumps(config), encoding="utf-8")


def test_nothing_configured_answers_empty_lists(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answers = {path: client.get(path).json() for path in ("/mcp", "/lsp", "/formatter")}
        symbols = client.get("/find/symbol", params={"query": "main"}).json()
        missing = client.get("/find/symbol")
    assert answers == {"/mcp": {}, "/lsp": [], "/formatter": []} and symbols == []
    assert missing.status_code == 400


def test_mcp_status_and_resources_come_from_the_running_servers(serve: ServeFactory, project: Path) -> None:
    broken = {"type": "local", "command": [str(project / "no-such-server")]}
    project_config(
        project, {"mcp": {"fixture": fixture_server(), "broken": broken, "off": {**broken, "enabled": False}}}
    )
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=60) as client:
        status = client.get("/mcp").json()
        resources = client.get("/experimental/resource").json()
    assert status["fixture"] == {"status": "connected"} and status["off"] == {"status": "disabled"}
    assert status["broken"]["status"] == "failed" and status["broken"]["error"]
    assert schema_problems("/mcp", "get", status) is None
    assert resources["fixture:readme"] == {
        "name": "readme",
        "uri": "note://readme",
        "mimeType": "text/plain",
        "client": "fixture",
    }
    assert schema_problems("/experimental/resource", "get", resources) is None


def test_lsp_status_and_symbols_come_from_the_language_servers_a_turn_started(
    serve: ServeFactory, project: Path
) -> None:
    # The start counter lives in the project: the server runs inside the sandbox, which may write only there.
    fake = {"command": [sys.executable, str(FAKE_SERVER), "report", str(project / ".starts")], "extensions": [".py"]}
    project_config(project, {"lsp": {"pyright": {"disabled": True}, "fake": fake}})
    write = {"name": "write", "arguments": {"filePath": str(project / "calc.py"), "content": "def add():\n    pass\n"}}
    server = serve([{"tool_calls": [write]}, {"text": "Written."}], permission=ALLOW)
    with httpx.Client(base_url=server.url, timeout=60) as client:
        session_id = client.post("/session", json={}).json()["id"]
        reply = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]})
        assert reply.status_code == 200, reply.text
        status = client.get("/lsp").json()
        symbols = client.get("/find/symbol", params={"query": "add"}).json()
    assert status == [{"id": "fake", "name": "fake", "root": "", "status": "connected"}]
    line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
    uri = (project / "calc.py").as_uri()
    assert symbols == [{"name": "add_fake", "kind": 12, "location": {"uri": uri, "range": line}}]
    assert schema_problems("/find/symbol", "get", symbols) is None


def test_formatter_status_lists_the_formatters_in_force(serve: ServeFactory, project: Path) -> None:
    project_config(project, {"formatter": {"upper": {"command": ["true", "$FILE"], "extensions": [".txt"]}}})
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listed = client.get("/formatter").json()
    assert {"name": "upper", "extensions": [".txt"], "enabled": True} in listed
    assert schema_problems("/formatter", "get", listed) is None


def git(project: Path, *args: str) -> None:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", *identity, "-C", str(project), *args], check=True, capture_output=True)


def test_file_status_lists_what_changed_since_the_last_commit(serve: ServeFactory, project: Path) -> None:
    (project / "gone.txt").write_text("one\ntwo\n")
    (project / ".gitignore").write_text("ignored.txt\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "start")
    server = serve([])  # its opencode.json is new: untracked
    (project / "notes.txt").write_text("hi\nthere\n")
    (project / "gone.txt").unlink()
    (project / "sub").mkdir()
    (project / "sub/new.txt").write_text("a\nb\nc")
    (project / "ignored.txt").write_text("x\n")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listed = client.get("/file/status").json()
    by_path = {entry["path"]: entry for entry in listed}
    assert by_path["notes.txt"] == {"path": "notes.txt", "added": 1, "removed": 0, "status": "modified"}
    assert by_path["gone.txt"] == {"path": "gone.txt", "added": 0, "removed": 2, "status": "deleted"}
    assert by_path["sub/new.txt"] == {"path": "sub/new.txt", "added": 3, "removed": 0, "status": "added"}
    assert "ignored.txt" not in by_path and by_path["opencode.json"]["status"] == "added"
    assert schema_problems("/file/status", "get", listed) is None


def test_file_status_without_a_commit_lists_everything_as_added(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        listed = client.get("/file/status").json()
    assert {"path": "notes.txt", "added": 1, "removed": 0, "status": "added"} in listed
