"""`/session/{id}/diff`, `/revert` and `/unrevert` as OpenCode's TUI calls them after a turn that changed files."""

from __future__ import annotations

from pathlib import Path

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
    assert forced.status_code == 200 and (project / "notes.txt").read_text() == "hi\n"
