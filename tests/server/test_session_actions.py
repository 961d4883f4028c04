"""`/session/{id}/share` (as OpenCode answers with sharing disabled: Strata has no share service), `/shell` (the
TUI's `!cmd`, run through the bash tool with no model call) and `/init` (the init command as a turn)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
from cli_harness import user_text
from server_harness import WAIT_SECONDS, ServeFactory, Server, following, schema_problems, wait_until

from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.texts import read_prompt

SHELL = {"agent": "build", "command": "echo hi; ls"}


def new_session(client: httpx.Client) -> str:
    session_id: str = client.post("/session", json={}).json()["id"]
    return session_id


def test_sharing_answers_the_session_unshared(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        shared = client.post(f"/session/{session_id}/share")
        unshared = client.delete(f"/session/{session_id}/share")
        missing = client.post("/session/ses_nope/share")
        stored = client.get(f"/session/{session_id}").json()
    assert shared.status_code == unshared.status_code == 200
    assert shared.json() == unshared.json() == stored and "share" not in stored
    assert schema_problems("/session/{sessionID}/share", "post", shared.json()) is None
    assert missing.status_code == 404


def test_a_shell_command_runs_without_the_model_and_is_stored_as_a_bash_call(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        answer = client.post(f"/session/{session_id}/shell", json=SHELL)
        messages = client.get(f"/session/{session_id}/message").json()
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert schema_problems("/session/{sessionID}/shell", "post", body) is None
    (part,) = body["parts"]
    assert (part["tool"], part["state"]["status"], part["state"]["input"]) == (
        "bash",
        "completed",
        {"command": SHELL["command"]},
    )
    assert part["state"]["output"].startswith("hi\n") and "notes.txt" in part["state"]["output"]
    assert body["info"]["role"] == "assistant" and body["info"]["time"]["completed"] >= body["info"]["time"]["created"]
    user, stored = messages
    assert stored == body and stored["info"]["parentID"] == user["info"]["id"]
    assert user["info"]["agent"] == "build" and user["info"]["model"]["modelID"] == "gpt-4o-mock"
    (said,) = user["parts"]
    assert said["synthetic"] is True and said["text"] == read_prompt("server/shell_command.txt").strip()
    assert server.model is not None and server.model.requests == []


def test_the_next_turn_reads_the_shell_call_like_any_other(serve: ServeFactory) -> None:
    server = serve([{"text": "Seen."}])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        client.post(f"/session/{session_id}/shell", json={"agent": "build", "command": "echo shell-output"})
        reply = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "and?"}]})
    assert reply.status_code == 200, reply.text
    assert server.model is not None
    (request,) = server.model.main_requests
    tool_results = [m for m in request.body["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 1 and "shell-output" in str(tool_results[0]["content"])


def shell_events(server: Server, session_id: str, command: str) -> list[dict[str, Any]]:
    with following(server.url) as wait, httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        client.post(f"/session/{session_id}/shell", json={"agent": "build", "command": command})
        events: list[dict[str, Any]] = []

        def collect(event: dict[str, Any]) -> bool:
            if event.get("properties", {}).get("sessionID") == session_id and event not in events:
                events.append(event)
            return bool(event["type"] == "session.idle" and event["properties"].get("sessionID") == session_id)

        wait(collect)
    return events


def test_a_shell_sends_opencodes_events_in_opencodes_order(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
    events = shell_events(server, session_id, "echo hi")
    steps: list[str] = []
    for event in events:
        kind, properties = event["type"], event["properties"]
        if kind == "message.updated":
            step = f"message.updated:{properties['info']['role']}"
        elif kind == "message.part.updated":
            part = properties["part"]
            step = f"part:{part['type']}:{part.get('state', {}).get('status', '')}"
        elif kind == "session.status":
            step = f"status:{properties['status']['type']}"
        else:
            step = kind
        if not steps or steps[-1] != step:
            steps.append(step)
    assert steps == [
        "status:busy",
        "message.updated:user",
        "part:text:",
        "message.updated:assistant",
        "part:tool:running",
        "message.updated:assistant",
        "part:tool:completed",
        "status:idle",
        "session.idle",
    ]


def test_abort_ends_a_shell_command_and_the_session_is_busy_while_it_runs(serve: ServeFactory, project: Path) -> None:
    server = serve([])
    answers: list[httpx.Response] = []
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)

        def run() -> None:
            with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as runner:
                command = "echo started > started.txt; sleep 60"
                answers.append(runner.post(f"/session/{session_id}/shell", json={"agent": "build", "command": command}))

        thread = threading.Thread(target=run)
        thread.start()
        wait_until(lambda: (project / "started.txt").exists(), "the command to start")
        assert client.get("/session/status").json() == {session_id: {"type": "busy"}}
        prompt = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "x"}]})
        again = client.post(f"/session/{session_id}/shell", json=SHELL)
        assert client.post(f"/session/{session_id}/abort").json() is True
        thread.join(WAIT_SECONDS)
        idle = client.get("/session/status").json()
    assert (prompt.status_code, prompt.json()["_tag"]) == (409, "SessionBusyError")
    assert (again.status_code, again.json()["_tag"]) == (409, "SessionBusyError")
    (answer,) = answers
    assert answer.status_code == 200, answer.text
    (part,) = answer.json()["parts"]
    assert part["state"]["status"] == "error" and part["state"]["error"] == "User aborted the command"
    assert answer.json()["info"]["error"]["name"] == "MessageAbortedError" and idle == {}


def test_a_shell_without_an_agent_is_refused(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        refused = client.post(f"/session/{session_id}/shell", json={"command": "ls"})
        unknown = client.post("/session/ses_nope/shell", json=SHELL)
    assert refused.status_code == 400 and "agent" in refused.json()["data"]["message"]
    assert unknown.status_code == 404


def test_init_runs_the_init_command_as_a_turn(serve: ServeFactory, project: Path) -> None:
    server = serve([{"text": "Init done."}])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        message_id = Ids(SystemClock()).new("msg")  # a client makes its own, as OpenCode's TUI does
        body = {"providerID": "mock", "modelID": "gpt-4o-mock", "messageID": message_id}
        answer = client.post(f"/session/{session_id}/init", json=body)
        messages = client.get(f"/session/{session_id}/message").json()
    assert (answer.status_code, answer.json()) == (200, True), answer.text
    user, assistant = messages
    assert user["info"]["id"] == message_id
    expected = read_prompt("commands/init.txt").splitlines()[0].split("(")[0]
    assert any(expected in part.get("text", "") for part in user["parts"])
    assert [p["text"] for p in assistant["parts"] if p["type"] == "text"] == ["Init done."]


def test_a_command_runs_as_a_turn_with_its_template_filled(serve: ServeFactory, project: Path) -> None:
    commands = project / ".opencode/command"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet someone.\n---\nSay hello to $ARGUMENTS.\n")
    server = serve([{"text": "Hello, world."}])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = new_session(client)
        # The body OpenCode's TUI sends for `/greet world`.
        body = {"command": "greet", "arguments": "world", "agent": "build", "model": "mock/gpt-4o-mock", "parts": []}
        answer = client.post(f"/session/{session_id}/command", json=body)
        unknown = client.post(f"/session/{session_id}/command", json={"command": "nope", "arguments": ""})
    assert answer.status_code == 200, answer.text
    assert schema_problems("/session/{sessionID}/command", "post", answer.json()) is None
    assert [p["text"] for p in answer.json()["parts"] if p["type"] == "text"] == ["Hello, world."]
    assert server.model is not None
    assert "Say hello to world." in user_text(server.model.main_requests[0].body)
    assert unknown.status_code == 400 and "nope" in unknown.json()["data"]["message"]
