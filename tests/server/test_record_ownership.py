"""A message or part belongs to one session (a part to one message) for good: a prompt, a shell command or a
part edit that names an id another session or message holds is refused, and both sessions stay as they were."""

from __future__ import annotations

from typing import Any

import httpx
from server_harness import WAIT_SECONDS, ServeFactory


def texts(client: httpx.Client, session_id: str) -> list[tuple[str, list[str]]]:
    """Each message's id with its text parts' texts, as the session lists them."""
    messages = client.get(f"/session/{session_id}/message").json()
    return [(m["info"]["id"], [p["text"] for p in m["parts"] if p["type"] == "text"]) for m in messages]


def two_sessions_with_a_note_each(client: httpx.Client) -> tuple[str, str]:
    first, second = (client.post("/session", json={}).json()["id"] for _ in range(2))
    for session_id, note in ((first, "first note"), (second, "second note")):
        body = {"noReply": True, "parts": [{"type": "text", "text": note}]}
        assert client.post(f"/session/{session_id}/message", json=body).status_code == 200
    return first, second


def test_a_prompt_or_shell_with_another_sessions_message_id_is_refused(serve: ServeFactory) -> None:
    server = serve([{"text": "not reached"}])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        first, second = two_sessions_with_a_note_each(client)
        before = {first: texts(client, first), second: texts(client, second)}
        # The first session's note is older: the second's sorts after everything the first session holds.
        taken = before[second][0][0]
        prompt = {"messageID": taken, "parts": [{"type": "text", "text": "steal"}]}
        prompted = client.post(f"/session/{first}/message", json=prompt)
        shell = client.post(f"/session/{first}/shell", json={"agent": "build", "command": "true", "messageID": taken})
        after = {first: texts(client, first), second: texts(client, second)}
    for refused in (prompted, shell):
        assert refused.status_code == 400, refused.text
        assert f"{taken} is already a message of session {second}" in refused.json()["data"]["message"]
    assert after == before


def test_a_part_edit_with_another_messages_part_id_is_refused(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        first, second = two_sessions_with_a_note_each(client)
        before = {first: texts(client, first), second: texts(client, second)}
        target = client.get(f"/session/{first}/message").json()[0]["info"]["id"]
        other: dict[str, Any] = client.get(f"/session/{second}/message").json()[0]["parts"][0]
        moved = {**other, "sessionID": first, "messageID": target, "text": "moved"}
        answer = client.patch(f"/session/{first}/message/{target}/part/{other['id']}", json=moved)
        after = {first: texts(client, first), second: texts(client, second)}
    assert answer.status_code == 400, answer.text
    assert f"{other['id']} already belongs to another message" in answer.json()["data"]["message"]
    assert after == before
