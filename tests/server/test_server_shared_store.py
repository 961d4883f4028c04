"""`strata serve` on a shared PostgreSQL store: a session another process is writing is refused at once (409) for
`prompt_async` as for `message`, and taken as soon as that writer lets go; a turn rides out a database restart,
and a database that is away is a 503 naming it."""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio
import httpx
from server_harness import ServeFactory, wait_until

from strata_core.session import PostgresSessionStore

PROMPT = {"parts": [{"type": "text", "text": "hello"}]}


def test_a_session_another_host_is_writing_is_busy_for_both_prompt_routes(
    serve: ServeFactory, postgres_url: str
) -> None:
    server = serve([{"text": "Answered once it was free."}], extra_env={"STRATA_DATABASE_URL": postgres_url})
    with httpx.Client(base_url=server.url, timeout=60) as client:
        session_id = client.post("/session", json={}).json()["id"]

        async def prompts_while_held() -> list[httpx.Response]:
            async with PostgresSessionStore.open(postgres_url) as other_host, other_host.lease(session_id):
                paths = [f"/session/{session_id}/{route}" for route in ("message", "prompt_async")]
                return [await anyio.to_thread.run_sync(partial(client.post, path, json=PROMPT)) for path in paths]

        for busy in anyio.run(prompts_while_held):
            assert busy.status_code == 409 and busy.json()["_tag"] == "SessionBusyError", busy.text
            assert busy.json()["sessionID"] == session_id
        assert client.get(f"/session/{session_id}/message").json() == []

        answered = client.post(f"/session/{session_id}/message", json=PROMPT)
        assert answered.status_code == 200, answered.text
        assert [p["text"] for p in answered.json()["parts"] if p["type"] == "text"] == ["Answered once it was free."]


SLEEP = {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 4", "description": "Wait a while"}}]}


def test_a_turn_rides_out_a_database_restart_and_a_database_that_is_away_is_a_503(
    serve: ServeFactory, postgres_url: str, postgres_server: Any
) -> None:
    server = serve(
        [SLEEP, {"text": "Done after the restart."}],
        extra_env={"STRATA_DATABASE_URL": postgres_url},
        permission={"bash": "allow"},
    )
    with httpx.Client(base_url=server.url, timeout=60) as client:
        session_id = client.post("/session", json={}).json()["id"]
        client.post(f"/session/{session_id}/prompt_async", json=PROMPT)
        wait_until(lambda: "running" in tool_statuses(client, session_id), "the call to run")
        postgres_server.stop("fast")  # mid-turn: every connection of the server dies
        postgres_server.start()
        wait_until(lambda: not client.get("/session/status").json(), "the turn to end")
        messages = client.get(f"/session/{session_id}/message").json()
        assert tool_statuses(client, session_id) == ["completed"]
        assert [p.get("text") for p in messages[-1]["parts"] if p["type"] == "text"] == ["Done after the restart."]
        assert messages[-1]["info"].get("error") is None and messages[-1]["info"]["time"].get("completed")

        postgres_server.stop("fast")
        try:
            away = client.get("/session")
        finally:
            postgres_server.start()
        assert away.status_code == 503 and away.json()["name"] == "DatabaseUnavailableError", away.text
        assert "cannot be reached" in away.text or "not answering" in away.text
        assert client.get("/session").status_code == 200


def tool_statuses(client: httpx.Client, session_id: str) -> list[str]:
    messages = client.get(f"/session/{session_id}/message").json()
    return [part["state"]["status"] for message in messages for part in message["parts"] if part["type"] == "tool"]
