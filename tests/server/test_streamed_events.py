"""What `/event` sends while a turn streams: a text part whole at its start and end with its deltas between
(what OpenCode's TUI and SDK grow it from), and a tool call whose arguments stream in many chunks shown
pending once, then running, then done, never once per chunk."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
from server_harness import ServeFactory

ANSWER = "".join(f"word{n} " for n in range(400))
TODO = {"todos": [{"content": "stream the arguments " * 5, "status": "pending", "priority": "high"}]}
SCRIPT = [
    {"tool_calls": [{"name": "todowrite", "arguments": TODO}], "chunk_size": 4},
    {"text": ANSWER, "chunk_size": 7},
]


def turn_events(serve: ServeFactory) -> list[dict[str, Any]]:
    server = serve(SCRIPT, permission={"*": "allow"})
    events: list[dict[str, Any]] = []
    connected = threading.Event()

    def listen() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as reader, reader.stream("GET", "/event") as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line.removeprefix("data:")))
                    connected.set()
                    if events[-1]["type"] == "session.idle":
                        return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert connected.wait(10)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = client.post("/session", json={}).json()["id"]
        reply = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]})
        assert reply.status_code == 200, reply.text
    thread.join(30)
    return events


def test_a_streamed_turn_sends_whole_parts_at_their_edges_and_only_pieces_between(serve: ServeFactory) -> None:
    events = turn_events(serve)
    updated = [e["properties"]["part"] for e in events if e["type"] == "message.part.updated"]
    (text_id,) = {part["id"] for part in updated if part["type"] == "text" and part["text"] == ANSWER}
    deltas = [e["properties"] for e in events if e["type"] == "message.part.delta"]
    assert "".join(d["delta"] for d in deltas if d["partID"] == text_id and d["field"] == "text") == ANSWER
    assert max(len(d["delta"]) for d in deltas) <= 7
    assert [part["text"] for part in updated if part["id"] == text_id] == ["", ANSWER]
    tool_states = [part["state"]["status"] for part in updated if part["type"] == "tool"]
    assert tool_states == ["pending", "running", "completed"]
