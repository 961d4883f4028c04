"""What the server answers fits OpenCode's own response schemas (the ones `/doc` carries from OpenCode's
document), route by route, after a turn that used a tool: a client generated from OpenCode's spec reads it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from server_harness import ServeFactory, turn_events

from strata_server.openapi import document

TODO = {"todos": [{"content": "write tests", "status": "pending", "priority": "high"}]}
SCRIPT = [
    {
        "tool_calls": [
            {"name": "todowrite", "arguments": TODO},
            {"name": "read", "arguments": {"filePath": "notes.txt"}},
        ]
    },
    {"text": "Noted."},
]


def problems(path: str, method: str, status: int, body: Any) -> str | None:
    operation = document()["paths"][path][method]
    schema = operation["responses"][str(status)]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": document()["components"]})
    error = best_match(validator.iter_errors(body))
    if error is None:
        return None
    return f"{method.upper()} {path}: {'/'.join(map(str, error.absolute_path))}: {error.message}"


@pytest.fixture
def answered(serve: ServeFactory) -> tuple[str, str]:
    server = serve(SCRIPT, permission={"*": "allow"})
    with httpx.Client(base_url=server.url, timeout=30) as client:
        session_id = client.post("/session", json={"title": "shapes"}).json()["id"]
        reply = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "go"}]})
        assert reply.status_code == 200, reply.text
    return server.url, session_id


def test_every_answer_fits_opencodes_response_schema(answered: tuple[str, str]) -> None:
    url, session_id = answered
    with httpx.Client(base_url=url, timeout=30) as client:
        messages = client.get(f"/session/{session_id}/message").json()
        message_id = messages[-1]["info"]["id"]
        calls = [
            ("/global/health", "/global/health", {}),
            ("/path", "/path", {}),
            ("/vcs", "/vcs", {}),
            ("/project/current", "/project/current", {}),
            ("/config", "/config", {}),
            ("/config/providers", "/config/providers", {}),
            ("/provider", "/provider", {}),
            ("/agent", "/agent", {}),
            ("/skill", "/skill", {}),
            ("/command", "/command", {}),
            ("/session", "/session", {}),
            ("/session/status", "/session/status", {}),
            ("/permission", "/permission", {}),
            ("/session/{sessionID}", f"/session/{session_id}", {}),
            ("/session/{sessionID}/children", f"/session/{session_id}/children", {}),
            ("/session/{sessionID}/todo", f"/session/{session_id}/todo", {}),
            ("/session/{sessionID}/message", f"/session/{session_id}/message", {}),
            ("/session/{sessionID}/message/{messageID}", f"/session/{session_id}/message/{message_id}", {}),
            ("/file", "/file", {"path": "."}),
            ("/file/content", "/file/content", {"path": "notes.txt"}),
            ("/find", "/find", {"pattern": "hi"}),
            ("/find/file", "/find/file", {"query": "notes"}),
        ]
        found = []
        for documented, actual, params in calls:
            response = client.get(actual, params=params)
            assert response.status_code == 200, (actual, response.text)
            found.append(problems(documented, "get", 200, response.json()))
        todo = client.get(f"/session/{session_id}/todo").json()
    assert [p for p in found if p] == []
    assert todo == TODO["todos"]
    tools = [p for m in messages for p in m["parts"] if p["type"] == "tool"]
    assert [t["tool"] for t in tools] == ["todowrite", "read"]


def test_the_schema_check_refuses_what_does_not_fit() -> None:
    assert (
        problems("/global/health", "get", 200, {"healthy": True})
        == "GET /global/health: : 'version' is a required property"
    )
    assert problems("/session", "get", 200, [{"id": "ses_1"}]) is not None


def test_every_event_of_a_turn_fits_opencodes_event_schema(serve: ServeFactory) -> None:
    server = serve(SCRIPT, permission={"*": "allow"})
    validator = Draft202012Validator({"$ref": "#/components/schemas/Event", "components": document()["components"]})
    events = turn_events(server)
    kinds = {event["type"] for event in events}
    assert {"server.connected", "session.created", "message.updated", "message.part.updated"} <= kinds
    assert {"message.part.delta", "session.status", "session.idle"} <= kinds
    misfits = [(event["type"], best_match(validator.iter_errors(event))) for event in events]
    assert [(kind, error.message) for kind, error in misfits if error is not None] == []
