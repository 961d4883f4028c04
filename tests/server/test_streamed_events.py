"""What `/event` sends while a turn streams: a text part whole at its start and end with its deltas between
(what OpenCode's TUI and SDK grow it from), and a tool call whose arguments stream in many chunks shown
pending once, then running, then done, never once per chunk."""

from __future__ import annotations

from server_harness import ServeFactory, turn_events

ANSWER = "".join(f"word{n} " for n in range(400))
TODO = {"todos": [{"content": "stream the arguments " * 5, "status": "pending", "priority": "high"}]}
SCRIPT = [
    {"tool_calls": [{"name": "todowrite", "arguments": TODO}], "chunk_size": 4},
    {"text": ANSWER, "chunk_size": 7},
]


def test_a_streamed_turn_sends_whole_parts_at_their_edges_and_only_pieces_between(serve: ServeFactory) -> None:
    events = turn_events(serve(SCRIPT, permission={"*": "allow"}))
    updated = [e["properties"]["part"] for e in events if e["type"] == "message.part.updated"]
    (text_id,) = {part["id"] for part in updated if part["type"] == "text" and part["text"] == ANSWER}
    deltas = [e["properties"] for e in events if e["type"] == "message.part.delta"]
    assert "".join(d["delta"] for d in deltas if d["partID"] == text_id and d["field"] == "text") == ANSWER
    assert max(len(d["delta"]) for d in deltas) <= 7
    assert [part["text"] for part in updated if part["id"] == text_id] == ["", ANSWER]
    tool_states = [part["state"]["status"] for part in updated if part["type"] == "tool"]
    assert tool_states == ["pending", "running", "completed"]
