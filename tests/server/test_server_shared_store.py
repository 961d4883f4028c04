"""`strata serve` on a shared PostgreSQL store: a session another process is writing is refused at once (409) for
`prompt_async` as for `message`, and taken as soon as that writer lets go."""

from __future__ import annotations

from functools import partial

import anyio
import httpx
from server_harness import ServeFactory

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
