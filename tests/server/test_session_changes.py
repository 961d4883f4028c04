"""`/session/{id}/diff`, `/revert` and `/unrevert` as OpenCode's TUI calls them after a turn that changed files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from server_harness import ServeFactory

WRITE = {
    "tool_calls": [
        {"name": "bash", "arguments": {"command": "echo made > made.txt && echo HI > notes.txt", "description": "x"}}
    ]
}
PROMPT = {"parts": [{"type": "text", "text": "change files"}]}
ALLOW = {"bash": "allow"}


def test_diff_revert_and_unrevert_over_http(serve: ServeFactory, project: Path) -> None:
    server = serve([WRITE, {"text": "Done."}], permission=ALLOW)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/message", json=PROMPT).raise_for_status()
        user_id = client.get(f"/session/{session_id}/message").json()[0]["info"]["id"]
        diff = client.get(f"/session/{session_id}/diff", params={"messageID": user_id}).json()
        whole = client.get(f"/session/{session_id}/diff").json()

        reverted = client.post(f"/session/{session_id}/revert", json={"messageID": user_id})
        after_revert = (project / "notes.txt").read_text(), (project / "made.txt").exists()
        restored = client.post(f"/session/{session_id}/unrevert")
        missing = client.post(f"/session/{session_id}/revert", json={})
    assert [(d["file"], d["status"], d["additions"], d["deletions"]) for d in diff] == [
        ("made.txt", "added", 1, 0),
        ("notes.txt", "modified", 1, 1),
    ]
    assert diff[1]["patch"].startswith("Index: notes.txt\n") and "-hi\n+HI\n" in diff[1]["patch"]
    assert whole == []  # without a messageID OpenCode 1.18.33 answers no files
    assert reverted.status_code == 200, reverted.text
    assert reverted.json()["revert"]["messageID"] == user_id and reverted.json()["revert"]["snapshot"]
    assert after_revert == ("hi\n", False)
    assert restored.status_code == 200 and "revert" not in restored.json()
    assert (project / "notes.txt").read_text() == "HI\n" and (project / "made.txt").read_text() == "made\n"
    assert missing.status_code == 400


def test_a_revert_over_an_outside_edit_is_refused_naming_the_file(serve: ServeFactory, project: Path) -> None:
    server = serve([WRITE, {"text": "Done."}], permission=ALLOW)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/message", json=PROMPT).raise_for_status()
        user_id = client.get(f"/session/{session_id}/message").json()[0]["info"]["id"]
        (project / "notes.txt").write_text("mine\n")
        refused = client.post(f"/session/{session_id}/revert", json={"messageID": user_id})
        forced = client.post(f"/session/{session_id}/revert", params={"force": "true"}, json={"messageID": user_id})
    assert refused.status_code == 409
    assert refused.json()["name"] == "RevertConflictError"
    assert refused.json()["data"]["files"] == [str(project / "notes.txt")]
    assert "?force=true" in refused.json()["data"]["message"] and "--force" not in refused.json()["data"]["message"]
    assert forced.status_code == 200 and (project / "notes.txt").read_text() == "hi\n"


def write_a(text: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"filePath": "a.txt", "content": text}}]}


def serve_two_turns(serve: ServeFactory) -> httpx.Client:
    script = [write_a("one\n"), {"text": "wrote one"}, write_a("two\n"), {"text": "wrote two"}]
    return httpx.Client(base_url=serve(script, permission={"*": "allow"}).url, timeout=30)


def two_turns_writing_a(client: httpx.Client) -> tuple[str, list[str]]:
    """A session whose first turn wrote a.txt "one" and second "two", and its message ids."""
    session_id = client.post("/session", json={}).json()["id"]
    for text in ("1", "2"):
        client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})
    return session_id, [m["info"]["id"] for m in client.get(f"/session/{session_id}/message").json()]


def test_after_a_revert_at_a_turns_last_message_a_further_revert_and_unrevert_go_ahead(
    serve: ServeFactory, project: Path
) -> None:
    # Reverting at turn 1's closing message takes back turn 2 only, yet marks the revert at turn 1's user
    # message: the file then holds turn 1's "one", which is the revert's doing, not an outside change.
    with serve_two_turns(serve) as client:
        session_id, (first_user, _, wrote_one, *_) = two_turns_writing_a(client)
        at_turn_end = client.post(f"/session/{session_id}/revert", json={"messageID": wrote_one})
        after_first = (project / "a.txt").read_text()
        further = client.post(f"/session/{session_id}/revert", json={"messageID": first_user})
        after_further = (project / "a.txt").exists()
        unreverted = client.post(f"/session/{session_id}/unrevert")
    assert at_turn_end.status_code == 200 and at_turn_end.json()["revert"]["messageID"] == first_user
    assert after_first == "one\n"
    assert further.status_code == 200, further.text
    assert not after_further
    assert unreverted.status_code == 200, unreverted.text
    assert (project / "a.txt").read_text() == "two\n"


def test_an_unrevert_after_a_revert_at_a_turns_last_message_still_sees_outside_edits(
    serve: ServeFactory, project: Path
) -> None:
    with serve_two_turns(serve) as client:
        session_id, (_, _, wrote_one, *_) = two_turns_writing_a(client)
        client.post(f"/session/{session_id}/revert", json={"messageID": wrote_one}).raise_for_status()
        undone = client.post(f"/session/{session_id}/unrevert")
        client.post(f"/session/{session_id}/revert", json={"messageID": wrote_one}).raise_for_status()
        (project / "a.txt").write_text("mine\n")
        refused = client.post(f"/session/{session_id}/unrevert")
    assert undone.status_code == 200, undone.text
    assert refused.status_code == 409 and refused.json()["data"]["files"] == [str(project / "a.txt")]
    assert (project / "a.txt").read_text() == "mine\n"
