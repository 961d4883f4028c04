"""How the server runs turns: aborts take their open questions with them, unanswered questions time out,
many sessions run at once, and the process stops cleanly."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path
from typing import Any

import httpx
from cli_harness import Cli
from server_harness import ServeFactory, wait_until

BASH = {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi", "description": "Print hi"}}]}
PROMPT = {"parts": [{"type": "text", "text": "run it"}]}
WAIT = 20.0


def test_an_abort_ends_the_turn_and_takes_its_question_with_it(serve: ServeFactory) -> None:
    server = serve([BASH])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        assert client.post(f"/session/{session_id}/prompt_async", json=PROMPT).status_code == 204
        (question,) = wait_until(lambda: client.get("/permission").json(), "the question")
        assert client.get("/session/status").json() == {session_id: {"type": "busy"}}
        assert client.post(f"/session/{session_id}/abort").json() is True
        # The answer comes once the turn has stored its end: a client reads it at once (OpenCode's SDK does).
        assert client.get("/session/status").json() == {}
        last = client.get(f"/session/{session_id}/message").json()[-1]
        assert _ended(last) is not None
        assert client.get("/permission").json() == []
        late = client.post(f"/permission/{question['id']}/reply", json={"reply": "once"})
    assert late.status_code == 404 and late.json()["name"] == "NotFoundError"
    assert last["info"]["error"]["name"] == "MessageAbortedError"
    (tool,) = [p for p in last["parts"] if p["type"] == "tool"]
    assert tool["state"]["status"] == "error"


def test_an_abort_is_answered_once_the_turn_has_stored_its_end(serve: ServeFactory, project: Path) -> None:
    # The call runs until the abort kills it; its end (the call's output, the message completed) is stored
    # after the cancellation reaches the turn, and the abort's answer must wait for that.
    command = "echo started > started.txt; sleep 60"
    running = {"tool_calls": [{"name": "bash", "arguments": {"command": command, "description": "Wait"}}]}
    server = serve([running], permission={"bash": "allow"})
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        assert client.post(f"/session/{session_id}/prompt_async", json=PROMPT).status_code == 204
        wait_until(lambda: (project / "started.txt").exists(), "the command to start")
        assert client.post(f"/session/{session_id}/abort").json() is True
        last = client.get(f"/session/{session_id}/message").json()[-1]
    assert _ended(last) is not None and last["info"]["error"]["name"] == "MessageAbortedError"
    (tool,) = [p for p in last["parts"] if p["type"] == "tool"]
    assert tool["state"]["status"] == "completed", tool["state"]  # a shell call keeps what it printed
    assert "aborted" in tool["state"]["output"], tool["state"]


def _ended(message: dict[str, Any]) -> dict[str, Any] | None:
    """The message if it is stored ended (completed), else None."""
    return message if message["info"].get("time", {}).get("completed") else None


def test_an_unanswered_question_fails_its_call_and_ends_the_turn_after_the_timeout(serve: ServeFactory) -> None:
    server = serve([BASH], args=("--permission-timeout", "1"))
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session_id}/message", json=PROMPT).json()
        messages = client.get(f"/session/{session_id}/message").json()
    tool = next(p for m in messages for p in m["parts"] if p["type"] == "tool")
    assert tool["state"]["status"] == "error"
    assert "nobody answered within 1 s" in tool["state"]["error"]
    assert answer["info"]["id"] == messages[-1]["info"]["id"]  # no answer is a refusal: the turn ends there


def test_many_sessions_prompt_at_once_and_each_gets_its_answer(serve: ServeFactory) -> None:
    server = serve([{"text": "Done."}] * 6)
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        ids = [client.post("/session", json={}).json()["id"] for _ in range(6)]
        for session_id in ids:
            assert client.post(f"/session/{session_id}/prompt_async", json=PROMPT).status_code == 204

        def answered(session_id: str) -> bool:
            messages = client.get(f"/session/{session_id}/message").json()
            return len(messages) == 2 and "completed" in messages[1]["info"]["time"]  # stored as it starts, too

        wait_until(lambda: all(answered(s) for s in ids), "six answers")
        answers = [client.get(f"/session/{s}/message").json()[1] for s in ids]
    assert all(a["info"]["finish"] == "stop" and a["parts"][1]["text"] == "Done." for a in answers)


def test_cors_answers_only_the_listed_origins(serve: ServeFactory) -> None:
    server = serve([], args=("--cors", "http://app.example"))
    with httpx.Client(base_url=server.url) as client:
        listed = client.get("/global/health", headers={"origin": "http://app.example"})
        other = client.get("/global/health", headers={"origin": "http://evil.example"})
        preflight = client.options(
            "/session", headers={"origin": "http://app.example", "access-control-request-method": "POST"}
        )
    assert listed.headers["access-control-allow-origin"] == "http://app.example"
    assert "access-control-allow-origin" not in other.headers
    assert preflight.status_code == 200


def test_binding_beyond_loopback_needs_a_password(project: Any, env: dict[str, str]) -> None:
    done = Cli(project, env)("serve", "--hostname", "0.0.0.0", "--port", "0")
    assert done.returncode == 2
    assert "without a password; set STRATA_SERVER_PASSWORD" in done.stderr


def test_the_server_stops_on_sigterm_and_leaves_a_running_turn_aborted(
    serve: ServeFactory, project: Any, env: dict[str, str]
) -> None:
    server = serve([BASH])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        wait_until(lambda: client.get("/permission").json(), "the question")
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(WAIT) == 0
    shown = Cli(project, env)("session", "show", session_id, "--json")
    last = json.loads(shown.stdout)["messages"][-1]["info"]
    assert last["error"]["name"] == "MessageAbortedError"


def test_deleting_a_busy_session_stops_its_turn_first_and_leaves_nothing(serve: ServeFactory) -> None:
    server = serve([BASH])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        wait_until(lambda: client.get("/permission").json(), "the question")
        assert client.delete(f"/session/{session_id}").json() is True
        assert client.get(f"/session/{session_id}").status_code == 404
        assert client.get(f"/session/{session_id}/message").status_code == 404
        assert client.get("/session").json() == []
        assert client.get("/permission").json() == []


def test_a_prompt_to_a_busy_session_joins_its_running_turn_as_opencode_does(serve: ServeFactory) -> None:
    server = serve([BASH, {"text": "Ran it, and read your note."}])
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        (question,) = wait_until(lambda: client.get("/permission").json(), "the question")
        note = {"parts": [{"type": "text", "text": "also, a note"}]}
        assert client.post(f"/session/{session_id}/prompt_async", json=note).status_code == 204
        client.post(f"/permission/{question['id']}/reply", json={"reply": "once"})
        wait_until(lambda: client.get("/session/status").json() == {}, "the turn to end")
        messages = client.get(f"/session/{session_id}/message").json()
    roles = [(m["info"]["role"], m["info"].get("finish")) for m in messages]
    assert roles == [("user", None), ("assistant", "tool-calls"), ("user", None), ("assistant", "stop")]
    assert messages[2]["parts"][0]["text"] == "also, a note"


def test_summarize_compacts_the_session_now(serve: ServeFactory) -> None:
    server = serve([{"text": "Hello."}, {"text": "We said hello."}])
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/message", json=PROMPT)
        model = {"providerID": "mock", "modelID": "gpt-4o-mock"}
        done = client.post(f"/session/{session_id}/summarize", json=model)
        unknown = client.post(f"/session/{session_id}/summarize", json={**model, "modelID": "nope"})
        messages = client.get(f"/session/{session_id}/message").json()
    assert done.json() is True and unknown.status_code == 400
    summary = messages[-1]
    assert summary["info"]["summary"] is True
    assert [p["text"] for p in summary["parts"] if p["type"] == "text"] == ["We said hello."]
    assert any(p["type"] == "compaction" for m in messages for p in m["parts"])


def test_summarize_of_a_session_with_no_messages_is_a_bad_request(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session_id}/summarize", json={"providerID": "mock", "modelID": "gpt-4o-mock"})
        messages = client.get(f"/session/{session_id}/message").json()
        status = client.get("/session/status").json()
    assert answer.status_code == 400 and answer.json()["name"] == "BadRequest"
    assert "has no messages to summarize yet" in answer.json()["data"]["message"]
    assert messages == [] and status == {}


def test_the_global_stream_wraps_each_event_with_its_directory_and_project(serve: ServeFactory, project: Any) -> None:
    server = serve([])
    got: list[dict[str, Any]] = []
    with httpx.Client(base_url=server.url, timeout=WAIT) as client, client.stream("GET", "/global/event") as stream:
        lines = stream.iter_lines()
        for line in lines:
            if line.startswith("data:"):
                got.append(json.loads(line.removeprefix("data:")))
                break
        session_id = client.post("/session", json={}).json()["id"]
        for line in lines:
            if line.startswith("data:"):
                got.append(json.loads(line.removeprefix("data:")))
                break
    assert set(got[0]) == {"payload"} and got[0]["payload"]["type"] == "server.connected"
    assert got[1]["directory"] == str(project) and got[1]["project"]
    assert got[1]["payload"]["type"] == "session.created"
    assert got[1]["payload"]["properties"]["sessionID"] == session_id


def test_a_taken_port_is_one_clear_paragraph(project: Any, env: dict[str, str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = Cli(project, env)("serve", "--port", str(port))
    assert done.returncode == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_an_always_answer_over_the_api_approves_the_same_kind_of_call_for_the_session(serve: ServeFactory) -> None:
    again = {"tool_calls": [{"name": "bash", "arguments": {"command": "echo again", "description": "Print"}}]}
    server = serve([BASH, again, {"text": "Both ran."}])
    with httpx.Client(base_url=server.url, timeout=WAIT) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        (question,) = wait_until(lambda: client.get("/permission").json(), "the question")
        assert question["always"] == ["echo *"]
        deprecated = client.post(f"/session/{session_id}/permissions/{question['id']}", json={"response": "always"})
        assert deprecated.json() is True
        wait_until(lambda: client.get("/session/status").json() == {}, "the turn to end")
        messages = client.get(f"/session/{session_id}/message").json()
    tools = [p for m in messages for p in m["parts"] if p["type"] == "tool"]
    assert [t["state"]["status"] for t in tools] == ["completed", "completed"]
    assert messages[-1]["parts"][-2]["text"] == "Both ran."


def test_editing_the_messages_of_a_busy_session_is_refused_until_its_turn_ends(serve: ServeFactory) -> None:
    """The turn's writer would put back what an edit took away, so a running turn makes the session busy
    (OpenCode's 409 `SessionBusyError`); once it has ended, the same edits go through."""
    server = serve([BASH])
    with httpx.Client(base_url=server.url) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        wait_until(lambda: client.get("/permission").json(), "the question")
        (user, reply) = client.get(f"/session/{session_id}/message").json()
        text = user["parts"][0]
        base = f"/session/{session_id}/message/{user['info']['id']}"
        refused = [
            client.delete(base),
            client.delete(f"{base}/part/{text['id']}"),
            client.patch(f"{base}/part/{text['id']}", json={**text, "text": "changed"}),
        ]
        assert [r.status_code for r in refused] == [409, 409, 409]
        assert all(r.json()["_tag"] == "SessionBusyError" and r.json()["sessionID"] == session_id for r in refused)
        assert client.get(f"/session/{session_id}/message").json()[0] == user
        client.post(f"/session/{session_id}/abort")
        wait_until(lambda: client.get("/session/status").json() == {}, "the session to be idle")
        assert client.patch(f"{base}/part/{text['id']}", json={**text, "text": "changed"}).json()["text"] == "changed"
        assert client.delete(base).json() is True
        left = client.get(f"/session/{session_id}/message").json()
    assert [m["info"]["id"] for m in left] == [reply["info"]["id"]]
