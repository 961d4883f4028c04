"""Two `strata serve` processes as two hosts: different HOMEs, each on its own clone of one repository, one PostgreSQL
database. They are one project; a session made on one is listed, streamed, continued, answered (a permission
question), aborted and taken over by the other;
they never run two turns of one session at once; many sessions prompted through both at once are all answered,
each answer stored once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_harness import isolated_env, mock_provider_config
from server_harness import Server, following, running_server, wait_until

from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.slow

WAIT = 60.0
SLEEP = {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 120", "description": "Wait a while"}}]}
CONCURRENT = 20
GIT_USER = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def _git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_USER}, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def clones(tmp_path: Path) -> tuple[Path, Path]:
    """One repository with a commit, cloned for each host."""
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", cwd=origin)
    (origin / "README.md").write_text("shared\n")
    _git("add", "README.md", cwd=origin)
    _git("commit", "-q", "-m", "root", cwd=origin)
    for host in ("host-a", "host-b"):
        _git("clone", "-q", str(origin), str(tmp_path / host / "work"), cwd=tmp_path)
    return tmp_path / "host-a" / "work", tmp_path / "host-b" / "work"


@pytest.fixture
def hosts(tmp_path: Path, clones: tuple[Path, Path], postgres_url: str) -> Iterator[dict[str, Any]]:
    """`start(name, script) -> Server`: a host's server on its clone, with a scripted model of its own."""
    with ExitStack() as stack:

        def start(name: str, script: list[dict[str, Any]]) -> Server:
            work = clones[0] if name == "a" else clones[1]
            model = stack.enter_context(ScriptedServer(script))
            config = {**mock_provider_config(model.base_url), "permission": {"bash": {"*": "allow", "cat *": "ask"}}}
            (work / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
            # A by the variable, B by the option: both ways of naming the shared database.
            env = isolated_env(tmp_path / f"host-{name}")
            if name == "a":
                server = stack.enter_context(running_server(work, {**env, "STRATA_DATABASE_URL": postgres_url}))
            else:
                server = stack.enter_context(running_server(work, env, ("--database", postgres_url)))
            return Server(server.url, server.process, server.output, model)

        yield {"start": start}


def prompt(url: str, session_id: str, text: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        return client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": text}]})


def answer_text(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    return "".join(p.get("text", "") for p in response.json()["parts"] if p["type"] == "text")


def tool_states(client: httpx.Client, session_id: str) -> list[dict[str, Any]]:
    messages = client.get(f"/session/{session_id}/message").json()
    return [part["state"] for message in messages for part in message["parts"] if part["type"] == "tool"]


def test_two_hosts_share_sessions_events_the_one_writer_lease_and_take_over_a_dead_host(
    hosts: dict[str, Any],
) -> None:
    read = {"tool_calls": [{"name": "bash", "arguments": {"command": "cat README.md", "description": "Read it"}}]}
    answers_a: list[dict[str, Any]] = [{"text": "Hello from A."}, read, {"text": "Read it."}]
    answers_a += [{"text": f"A answers {i}."} for i in range(CONCURRENT // 2)]
    answers_a += [SLEEP, SLEEP]  # the first is aborted from B, the second cut off by the kill
    answers_b = [{"text": "B continues."}, *({"text": f"B answers {i}."} for i in range(CONCURRENT // 2))]
    answers_b.append({"text": "B took over."})
    a, b = hosts["start"]("a", answers_a), hosts["start"]("b", answers_b)
    with httpx.Client(base_url=a.url, timeout=WAIT) as on_a, httpx.Client(base_url=b.url, timeout=WAIT) as on_b:
        project_a, project_b = on_a.get("/project/current").json(), on_b.get("/project/current").json()
        assert project_a["id"] == project_b["id"] and project_a["worktree"] != project_b["worktree"]

        # A session made on A is listed by B.
        session_id = on_a.post("/session", json={}).json()["id"]
        assert session_id in [s["id"] for s in on_b.get("/session").json()]

        # B's event stream shows the turn prompted on A.
        with following(b.url) as seen_on_b:
            assert answer_text(prompt(a.url, session_id, "first")) == "Hello from A."
            streamed = seen_on_b(
                lambda e: (
                    e.get("type") == "message.part.updated" and e["properties"]["part"].get("text") == "Hello from A."
                )
            )
        assert streamed["properties"]["part"]["sessionID"] == session_id

        # B continues the session with A's history.
        assert answer_text(prompt(b.url, session_id, "second")) == "B continues."
        assert b.model is not None
        sent = json.dumps(b.model.main_requests[-1].body["messages"])
        assert "first" in sent and "Hello from A." in sent and "second" in sent

        # A permission question of A's turn is answered through B.
        with following(b.url) as seen_on_b, ThreadPoolExecutor(1) as waiting:
            answer = waiting.submit(prompt, a.url, session_id, "read the readme")
            asked = seen_on_b(
                lambda e: e.get("type") == "permission.asked" and e["properties"]["sessionID"] == session_id
            )
            replied = on_b.post(f"/permission/{asked['properties']['id']}/reply", json={"reply": "once"})
            assert replied.status_code == 200 and replied.json() is True
            assert answer_text(answer.result(WAIT)) == "Read it."

        # Many sessions prompted at once through both servers: all answered, each answer stored once.
        sessions = [(a if i % 2 else b).url for i in range(CONCURRENT)]
        ids = [on_a.post("/session", json={}).json()["id"] for _ in sessions]
        with ThreadPoolExecutor(CONCURRENT) as pool:
            replies = list(
                pool.map(lambda pair: answer_text(prompt(pair[0], pair[1], "go")), zip(sessions, ids, strict=True))
            )
        expected = {f"{host} answers {i}." for host in "AB" for i in range(CONCURRENT // 2)}
        assert sorted(replies) == sorted(expected)
        for session in ids:
            stored = on_b.get(f"/session/{session}/message").json()
            assert [m["info"]["role"] for m in stored] == ["user", "assistant"]
        assert sorted(answer_of(on_a, session) for session in ids) == sorted(expected)

        # B's abort ends the turn A is running.
        started = on_a.post(f"/session/{session_id}/prompt_async", json={"parts": [{"type": "text", "text": "wait"}]})
        assert started.status_code == 204, started.text
        wait_until(lambda: [s for s in tool_states(on_b, session_id) if s["status"] == "running"], "A's call to run")
        assert on_b.post(f"/session/{session_id}/abort").json() is True
        # Clients are told idle as soon as the abort is asked (OpenCode's order); the call ends just after.
        wait_until(lambda: not on_a.get("/session/status").json(), "A to say the session is idle")
        wait_until(
            lambda: not [s for s in tool_states(on_b, session_id) if s["status"] in ("running", "pending")],
            "A's aborted call to be stored ended",
        )

        # While A runs a turn (a tool call), B's prompt for the session is refused at once.
        started = on_a.post(f"/session/{session_id}/prompt_async", json={"parts": [{"type": "text", "text": "wait"}]})
        assert started.status_code == 204, started.text
        wait_until(lambda: [s for s in tool_states(on_b, session_id) if s["status"] == "running"], "A's call to run")
        assert wait_until(lambda: session_id in on_b.get("/session/status").json(), "B to see the session busy")
        busy = prompt(b.url, session_id, "now")
        assert busy.status_code == 409 and busy.json()["_tag"] == "SessionBusyError", busy.text

        # A dies mid-tool; B takes the session over, and no call is left running.
        os.killpg(a.process.pid, signal.SIGKILL)
        a.process.wait(WAIT)
        assert answer_text(prompt(b.url, session_id, "are you there?")) == "B took over."
        states = tool_states(on_b, session_id)
        assert [s["status"] for s in states][-1] == "error" and states[-1]["metadata"]["interrupted"] is True
        assert [s for s in states if s["status"] in ("running", "pending")] == []


def answer_of(client: httpx.Client, session_id: str) -> str:
    (_, reply) = client.get(f"/session/{session_id}/message").json()
    return "".join(p.get("text", "") for p in reply["parts"] if p["type"] == "text")
