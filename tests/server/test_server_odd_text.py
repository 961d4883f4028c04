"""Text no encoder accepts (a lone UTF-16 surrogate escaped in a JSON body) is stored as U+FFFD, never a 500;
a prompt whose storing fails leaves no message behind."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from server_harness import ServeFactory

# Escaped as JSON escapes them: the bytes on the wire are `\ud800`, as a client or a model would send them.
SURROGATE_PROMPT = {"parts": [{"type": "text", "text": "hello \ud800 world"}]}


def post_json(client: httpx.Client, url: str, body: dict[str, Any], method: str = "POST") -> httpx.Response:
    content = json.dumps(body).encode("ascii")  # json.dumps escapes the surrogate as `\ud800`
    return client.request(method, url, content=content, headers={"content-type": "application/json"})


def new_session(client: httpx.Client) -> str:
    response = client.post("/session", json={})
    assert response.status_code == 200
    session_id: str = response.json()["id"]
    return session_id


def user_texts(client: httpx.Client, session_id: str) -> list[list[str]]:
    """The text parts of each stored user message."""
    messages = client.get(f"/session/{session_id}/message").json()
    return [[p["text"] for p in m["parts"] if p["type"] == "text"] for m in messages if m["info"]["role"] == "user"]


def test_a_prompt_with_a_lone_surrogate_is_answered_and_stored_with_its_text(serve: ServeFactory) -> None:
    server = serve([{"text": "Answered."}])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = new_session(client)
        response = post_json(client, f"/session/{session_id}/message", SURROGATE_PROMPT)
        assert response.status_code == 200, response.text
        assert [p.get("text") for p in response.json()["parts"] if p["type"] == "text"] == ["Answered."]
        assert user_texts(client, session_id) == [["hello \ufffd world"]]
    assert server.model is not None
    sent = server.model.main_requests[0].body["messages"][-1]["content"]
    assert "hello \ufffd world" in json.dumps(sent, ensure_ascii=False)


def test_a_session_title_with_a_lone_surrogate_is_kept_as_a_replacement_character(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url) as client:
        created = post_json(client, "/session", {"title": "made \udc80"})
        assert created.status_code == 200, created.text
        assert created.json()["title"] == "made \ufffd"
        session_id = created.json()["id"]
        renamed = post_json(client, f"/session/{session_id}", {"title": "renamed \udc80"}, method="PATCH")
        assert renamed.status_code == 200, renamed.text
        assert client.get(f"/session/{session_id}").json()["title"] == "renamed \ufffd"


def test_a_prompt_whose_parts_cannot_be_stored_leaves_no_empty_message(serve: ServeFactory, tmp_path: Path) -> None:
    server = serve([{"text": "Stored this time."}])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = new_session(client)
        (database,) = tmp_path.rglob("strata.db")
        # The store refuses the part (as a full disk or a damaged database would), after the message row.
        with sqlite3.connect(database) as conn:
            conn.execute(
                "CREATE TRIGGER refuse_part BEFORE INSERT ON part WHEN NEW.data LIKE '%refuse me%' "
                "BEGIN SELECT RAISE(ABORT, 'the store refused this part'); END"
            )
        url = f"/session/{session_id}/message"
        failed = client.post(url, json={"parts": [{"type": "text", "text": "refuse me"}]})
        assert failed.status_code >= 400
        assert client.get(f"/session/{session_id}/message").json() == []
        fine = client.post(url, json={"parts": [{"type": "text", "text": "keep me"}]})
        assert fine.status_code == 200, fine.text
        assert user_texts(client, session_id) == [["keep me"]]
