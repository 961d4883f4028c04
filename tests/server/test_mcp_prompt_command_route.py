"""`POST /session/:id/command` for an MCP prompt its server fails to give: the client's request is refused
(400) with what went wrong, not answered as an unknown error."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from mcp_servers import misbehaving_server
from server_harness import WAIT_SECONDS, ServeFactory


def test_a_prompt_command_the_server_fails_to_give_is_a_bad_request_saying_why(
    serve: ServeFactory, project: Path
) -> None:
    mcp = {"mcp": {"bad": misbehaving_server("prompt-malformed")}}
    (project / ".opencode").mkdir(exist_ok=True)
    (project / ".opencode/opencode.json").write_text(json.dumps(mcp))
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session_id}/command", json={"command": "bad:p1", "arguments": ""})
    assert answer.status_code == 400, answer.text
    assert answer.json()["data"]["message"] == (
        'MCP server "bad" answered prompts/get "p1" with a malformed result (messages: Input should be a valid list)'
    )
