"""What a prompt body may ask beyond its parts, as OpenCode 1.18.33's server takes it: `noReply` stores the
message without a turn, a client-chosen `messageID` names it, `agent` parts mention a subagent, and `variant`
picks the model's variant for the message."""

from __future__ import annotations

import json
from typing import Any

import httpx
from server_harness import ServeFactory

from strata_core.clock import FrozenClock, SystemClock
from strata_core.ids import Ids

DAY_MS = 24 * 3600 * 1000


def client_id(days_ahead: int = 0) -> str:
    """A message id as OpenCode's clients make one, from a clock `days_ahead` of this one, in its format."""
    return Ids(FrozenClock(SystemClock().now_ms() + days_ahead * DAY_MS)).new("msg")


def text_of(message: dict[str, Any]) -> list[str]:
    return [part["text"] for part in message["parts"] if part["type"] == "text"]


def test_no_reply_stores_the_message_and_the_next_turn_reads_it(serve: ServeFactory) -> None:
    server = serve([{"text": "Read both."}])
    assert server.model is not None
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        body = {"noReply": True, "parts": [{"type": "text", "text": "context only"}]}
        stored = client.post(f"/session/{session_id}/message", json=body).json()
        assert stored["info"]["role"] == "user" and text_of(stored) == ["context only"]
        assert server.model.main_requests == []  # no turn ran
        answer = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]})
        messages = client.get(f"/session/{session_id}/message").json()
    assert text_of(answer.json()) == ["Read both."]
    assert [m["info"]["role"] for m in messages] == ["user", "user", "assistant"]
    (request,) = server.model.main_requests
    assert "context only" in json.dumps(request.body["messages"])


def test_a_client_chosen_message_id_names_the_user_message_and_a_bad_one_is_refused(serve: ServeFactory) -> None:
    server = serve([{"text": "Noted."}])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        url = f"/session/{session_id}/message"
        malformed = client.post(url, json={"messageID": "msg_mine", "parts": [{"type": "text", "text": "x"}]})
        ahead = client.post(url, json={"messageID": client_id(30), "parts": [{"type": "text", "text": "x"}]})
        chosen = client_id()
        answer = client.post(url, json={"messageID": chosen, "parts": [{"type": "text", "text": "hi"}]}).json()
        again = client.post(url, json={"messageID": chosen, "parts": [{"type": "text", "text": "more"}]})
        messages = client.get(url).json()
    assert malformed.status_code == 400 and "not an OpenCode message id" in malformed.json()["data"]["message"]
    assert ahead.status_code == 400 and "hours ahead of this machine's clock" in ahead.json()["data"]["message"]
    assert messages[0]["info"]["id"] == chosen
    assert answer["info"]["parentID"] == chosen
    # OpenCode merges a second message into the first under a reused id; here it is refused and nothing changes.
    assert again.status_code == 400 and "must sort after" in again.json()["data"]["message"]
    assert [text_of(m) for m in messages] == [["hi"], ["Noted."]]


def test_an_agent_part_mentions_the_subagent_for_the_model(serve: ServeFactory) -> None:
    server = serve([{"text": "I will ask explore."}])
    assert server.model is not None
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        parts = [{"type": "text", "text": "look around"}, {"type": "agent", "name": "explore"}]
        client.post(f"/session/{session_id}/message", json={"parts": parts})
        (user, _) = client.get(f"/session/{session_id}/message").json()
    kinds = [(p["type"], p.get("name"), p.get("synthetic", False)) for p in user["parts"]]
    assert kinds == [("text", None, False), ("agent", "explore", False), ("text", None, True)]
    (request,) = server.model.main_requests
    assert "explore" in json.dumps(request.body["messages"][-1])


def test_a_variant_is_kept_on_the_user_message(serve: ServeFactory) -> None:
    server = serve([{"text": "Thinking hard."}])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        body = {"variant": "high", "parts": [{"type": "text", "text": "think"}]}
        client.post(f"/session/{session_id}/message", json=body)
        (user, _) = client.get(f"/session/{session_id}/message").json()
    assert user["info"]["model"]["variant"] == "high"
