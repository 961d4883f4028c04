"""`PUT DELETE /auth/{providerID}`: OpenCode's TUI `/connect` stores a key in Strata's `auth.json`, and the
running server's listings and turns use it at once; a bad body is a 400 that never echoes the key."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_harness import mock_provider_config
from server_harness import OPENCODE, ORACLE, Server, opencode_serve, running_server

from strata_providers.testing import ScriptedServer

KEY = "sk-stored-by-connect-7f3a"
WAIT = 20.0


@pytest.fixture
def keyless(project: Path, env: dict[str, str]) -> Iterator[Server]:
    """A server whose `mock` provider is configured without a key, on a scripted model."""
    with ScriptedServer([{"text": "Hello from the stored key."}]) as model:
        config = mock_provider_config(model.base_url)
        del config["provider"]["mock"]["options"]["apiKey"]
        (project / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
        with running_server(project, env) as server:
            yield Server(server.url, server.process, server.output, model)


def auth_file(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "strata" / "auth.json"


def test_a_stored_key_connects_its_provider_at_once_and_delete_disconnects_it(
    keyless: Server, env: dict[str, str]
) -> None:
    with httpx.Client(base_url=keyless.url, timeout=WAIT) as client:
        before = client.get("/provider").json()["connected"]
        stored = client.put("/auth/groq", json={"type": "api", "key": KEY})
        after = client.get("/provider").json()["connected"]
        listed = [p["id"] for p in client.get("/config/providers").json()["providers"]]
        removed = client.delete("/auth/groq")
        gone = client.get("/provider").json()["connected"]
    assert stored.status_code == 200 and stored.json() is True
    assert "groq" not in before and "groq" in after and "groq" in listed
    assert removed.status_code == 200 and removed.json() is True
    assert "groq" not in gone
    assert json.loads(auth_file(env).read_text(encoding="utf-8")) == {}


def test_a_turn_sends_the_stored_key_as_a_bearer_token(keyless: Server, env: dict[str, str]) -> None:
    with httpx.Client(base_url=keyless.url, timeout=WAIT) as client:
        assert client.put("/auth/mock", json={"type": "api", "key": KEY}).json() is True
        session_id = client.post("/session", json={}).json()["id"]
        answer = client.post(f"/session/{session_id}/message", json={"parts": [{"type": "text", "text": "hi"}]})
    assert answer.status_code == 200, answer.text
    assert keyless.model is not None
    # The turn's request, and the title's (the same provider's small model).
    assert {r.headers.get("authorization") for r in keyless.model.requests} == {f"Bearer {KEY}"}
    written = auth_file(env)
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert json.loads(written.read_text(encoding="utf-8")) == {"mock": {"type": "api", "key": KEY}}
    assert KEY not in "".join(keyless.output)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"type": "api", "key": 5}, "key"),
        ({"type": "api", "key": KEY, "extra": "x"}, "body: Additional properties"),
        ({"type": "oauth", "refresh": KEY}, "body: 'access' is a required property"),
        ({"type": "password", "key": KEY}, "type: it must be one of"),
    ],
)
def test_a_body_that_is_no_auth_object_is_a_400_that_does_not_echo_it(
    keyless: Server, env: dict[str, str], body: dict[str, Any], where: str
) -> None:
    with httpx.Client(base_url=keyless.url, timeout=WAIT) as client:
        refused = client.put("/auth/groq", json=body)
    assert refused.status_code == 400
    error = refused.json()
    assert error["name"] == "BadRequest" and error["data"]["message"].startswith(where)
    assert KEY not in refused.text
    assert not auth_file(env).exists()


def test_oauth_and_wellknown_credentials_are_stored_but_send_no_key(keyless: Server, env: dict[str, str]) -> None:
    oauth = {"type": "oauth", "refresh": "r-token-1234", "access": "a-token-1234", "expires": 0}
    wellknown = {"type": "wellknown", "key": "WK", "token": "wk-token-1234"}
    with httpx.Client(base_url=keyless.url, timeout=WAIT) as client:
        assert client.put("/auth/groq", json=oauth).json() is True
        assert client.put("/auth/mistral", json=wellknown).json() is True
        connected = client.get("/provider").json()["connected"]
    assert "groq" not in connected and "mistral" not in connected
    assert json.loads(auth_file(env).read_text(encoding="utf-8")) == {"groq": oauth, "mistral": wellknown}


def test_a_broken_auth_file_is_an_error_naming_it_not_a_traceback(keyless: Server, env: dict[str, str]) -> None:
    path = auth_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ broken", encoding="utf-8")
    with httpx.Client(base_url=keyless.url, timeout=WAIT) as client:
        listing = client.get("/provider")
        stored = client.put("/auth/groq", json={"type": "api", "key": KEY})
    for answer in (listing, stored):
        assert answer.status_code == 500
        error = answer.json()
        assert error["name"] == "CredentialsError" and error["data"]["path"] == str(path)
        assert "is not valid JSON (line 1, column 3)" in error["data"]["message"]
    assert path.read_text(encoding="utf-8") == "{ broken"  # left for the user to fix
    assert "Traceback" not in "".join(keyless.output)


EXCHANGES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("PUT", "/auth/groq", {"type": "api", "key": KEY}),
    ("PUT", "/auth/groq", {"type": "oauth", "refresh": "r", "access": "a", "expires": 1}),
    ("DELETE", "/auth/groq", None),
    ("DELETE", "/auth/never-stored", None),
    ("PUT", "/auth/groq", {"type": "api", "key": 5}),
    ("PUT", "/auth/groq", {"type": "password", "key": KEY}),
]


def answers(url: str) -> list[tuple[int, Any]]:
    """Each exchange's status with its body (`true`), or an error's name and kind (the messages differ: Strata's
    never quotes the refused body, OpenCode's does)."""
    seen: list[tuple[int, Any]] = []
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        for method, path, body in EXCHANGES:
            answer = client.request(method, path, json=body)
            data = answer.json()
            seen.append(
                (answer.status_code, data if answer.status_code == 200 else (data["name"], data["data"]["kind"]))
            )
    return seen


@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_the_routes_answer_as_opencode_serve_does(keyless: Server, tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "unused"}]), encoding="utf-8")
    with opencode_serve(tmp_path, script) as opencode:
        expected = answers(opencode.url)
    assert expected == [(200, True)] * 4 + [(400, ("BadRequest", "Payload"))] * 2
    assert answers(keyless.url) == expected
