"""`strata run --attach URL` against a server whose events and answer escape a lone UTF-16 surrogate (`\\ud800`),
as an OpenCode server may send a model's text: the run prints it as U+FFFD and succeeds, never an internal
error. The server is a small loopback one speaking the few routes and events an attached run uses."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cli_harness import Cli

SESSION = "ses_odd"
USER, ASSISTANT, TEXT = "msg_odd_user", "msg_odd_answer", "prt_odd_text"
ODD = "hello \ud800 world"
"""The answer: serialised with `json.dumps`, the surrogate goes on the wire as the escape `\\ud800`."""


def turn_events(directory: str) -> list[dict[str, Any]]:
    """OpenCode's events for one answered turn (as `strata serve` sends them), the text with the surrogate."""
    model = {"providerID": "mock", "modelID": "gpt-4o-mock"}
    user = {"id": USER, "sessionID": SESSION, "time": {"created": 1}, "agent": "build", "model": model, "role": "user"}
    tokens = {"input": 1, "output": 1, "reasoning": 0, "cache": {"read": 0, "write": 0}}
    answer = {
        "id": ASSISTANT,
        "sessionID": SESSION,
        "parentID": USER,
        "time": {"created": 2, "completed": 3},
        "modelID": "gpt-4o-mock",
        "providerID": "mock",
        "mode": "build",
        "agent": "build",
        "path": {"cwd": directory, "root": directory},
        "cost": 0.0,
        "tokens": tokens,
        "finish": "stop",
        "role": "assistant",
    }
    part = {"id": TEXT, "sessionID": SESSION, "messageID": ASSISTANT, "type": "text", "time": {"start": 2}}
    delta = {"sessionID": SESSION, "messageID": ASSISTANT, "partID": TEXT, "field": "text", "delta": ODD}
    return [
        {"type": "message.updated", "properties": {"sessionID": SESSION, "info": user}},
        {"type": "session.status", "properties": {"sessionID": SESSION, "status": {"type": "busy"}}},
        {"type": "message.updated", "properties": {"sessionID": SESSION, "info": answer}},
        {"type": "message.part.updated", "properties": {"sessionID": SESSION, "part": {**part, "text": ""}}},
        {"type": "message.part.delta", "properties": delta},
        {"type": "message.part.updated", "properties": {"sessionID": SESSION, "part": {**part, "text": ODD}}},
        {"type": "session.status", "properties": {"sessionID": SESSION, "status": {"type": "idle"}}},
        {"type": "session.idle", "properties": {"sessionID": SESSION}},
    ]


@contextmanager
def odd_text_server(directory: Path) -> Iterator[str]:
    events = turn_events(str(directory))
    prompted = threading.Event()
    sent = threading.Event()
    closing = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _json(self, value: Any) -> None:
            body = json.dumps(value).encode("ascii")
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path == "/path":
                self._json({"directory": str(directory)})
            elif self.path == "/event":
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                self._event({"type": "server.connected", "properties": {}})
                prompted.wait(30)
                for event in events:
                    self._event(event)
                sent.set()
                closing.wait(30)  # the stream stays open, as a server's does, until the client goes
            else:
                self.send_error(404)

        def _event(self, event: dict[str, Any]) -> None:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode("ascii"))
            self.wfile.flush()

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path == "/session":
                self._json({"id": SESSION, "title": "odd", "directory": str(directory)})
            elif self.path == f"/session/{SESSION}/message":
                prompted.set()
                sent.wait(30)
                info = events[2]["properties"]["info"]
                self._json({"info": info, "parts": [events[5]["properties"]["part"]]})
            else:
                self.send_error(404)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        closing.set()
        server.shutdown()
        server.server_close()


def test_an_attached_run_prints_a_lone_surrogate_as_a_replacement_character(
    tmp_path: Path, env: dict[str, str]
) -> None:
    with odd_text_server(tmp_path) as url:
        done = Cli(tmp_path, env, in_process=True)("run", "--attach", url, "say", "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello \ufffd world"
    assert "internal error" not in done.stderr


def test_an_attached_json_run_writes_valid_utf8_events(tmp_path: Path, env: dict[str, str]) -> None:
    with odd_text_server(tmp_path) as url:
        done = Cli(tmp_path, env, in_process=True)("run", "--attach", url, "--format", "json", "say", "hello")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    texts = [record["part"]["text"] for record in records if record["type"] == "text"]
    assert texts == ["hello \ufffd world"]
