"""A web page cannot use the server through a visitor's browser: a request naming another Host (DNS rebinding)
is refused, and so is a change sent from a foreign origin or with a body that is not JSON (CSRF)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from cli_harness import Cli
from server_harness import ServeFactory

from strata_server.browser_guard import host_name, media_refusal

SECRET = "sk-live-do-not-leak"
EVIL = "http://evil.example"
GOOD = "http://good.example"


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def sessions(client: httpx.Client) -> list[object]:
    listed: list[object] = client.get("/session").json()
    return listed


def forged_requests(client: httpx.Client, port: int) -> list[httpx.Response]:
    """What a page could make a browser send: a rebound name, and cross-origin simple requests."""
    return [
        client.get("/file/content", params={"path": ".env"}, headers={"host": f"attacker.example:{port}"}),
        client.get("/session", headers={"host": "attacker.example"}),
        client.post("/session", content=b"{}", headers={"origin": EVIL, "content-type": "text/plain"}),
        client.post("/session", json={}, headers={"origin": EVIL}),
        client.post("/session", content=b"title=x", headers={"content-type": "application/x-www-form-urlencoded"}),
        client.post("/session", content=b"{}"),  # a body without a type (a Blob, in a browser)
        client.post("/session", headers={"origin": "null"}),
    ]


def test_a_rebound_host_and_forged_changes_are_refused(serve: ServeFactory, project: Path) -> None:
    (project / ".env").write_text(f"API_KEY={SECRET}\n", encoding="utf-8")
    server = serve([])
    port = port_of(server.url)
    with httpx.Client(base_url=server.url) as client:
        rebound, rebound_list, plain, evil_json, form, untyped, null = forged_requests(client, port)
        by_name = client.get("/file/content", params={"path": ".env"}, headers={"host": f"localhost:{port}"})
        own_origin = client.post("/session", json={}, headers={"origin": server.url})
        no_origin = client.post("/session", json={"title": "from a script"})
        abort = client.post(f"/session/{no_origin.json()['id']}/abort")
        listed = sessions(client)

    assert (rebound.status_code, rebound.json()["name"]) == (403, "ForbiddenError")
    assert SECRET not in rebound.text and "DNS rebinding" in rebound.json()["data"]["message"]
    assert rebound_list.status_code == 403
    assert (plain.status_code, evil_json.status_code, null.status_code) == (403, 403, 403)
    assert "cross-site request forgery" in plain.json()["data"]["message"]
    assert (form.status_code, form.json()["name"]) == (415, "UnsupportedMediaTypeError")
    assert "not Content-Type application/x-www-form-urlencoded" in form.json()["data"]["message"]
    assert untyped.status_code == 415
    assert by_name.status_code == 200 and SECRET in by_name.json()["content"]
    assert own_origin.status_code == 200 and no_origin.status_code == 200 and abort.status_code == 200
    assert len(listed) == 2  # only the two allowed creations


def test_cors_origins_may_call_and_others_still_may_not(serve: ServeFactory, project: Path) -> None:
    (project / ".env").write_text(f"API_KEY={SECRET}\n", encoding="utf-8")
    server = serve([], args=("--cors", GOOD, "--allowed-host", "strata.proxy.example"))
    port = port_of(server.url)
    with httpx.Client(base_url=server.url) as client:
        rebound, _, plain, evil_json, form, untyped, null = forged_requests(client, port)
        assert sessions(client) == []
        preflight = client.options(
            "/session",
            headers={"origin": GOOD, "access-control-request-method": "POST", "access-control-request-headers": "x"},
        )
        good = client.post("/session", json={}, headers={"origin": GOOD})
        good_plain = client.post("/session", content=b"{}", headers={"origin": GOOD, "content-type": "text/plain"})
        proxied = client.get("/session", headers={"host": "Strata.Proxy.Example"})
        listed = sessions(client)

    assert rebound.status_code == 403 and SECRET not in rebound.text
    assert [r.status_code for r in (plain, evil_json, form, untyped, null)] == [403, 403, 415, 415, 403]
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == GOOD
    assert good.status_code == 200 and good.headers["access-control-allow-origin"] == GOOD
    assert good_plain.status_code == 415
    assert proxied.status_code == 200
    assert len(listed) == 1


def test_with_a_password_a_foreign_origin_is_refused_even_with_the_credentials(serve: ServeFactory) -> None:
    server = serve([], extra_env={"STRATA_SERVER_PASSWORD": "sesame"})
    auth = ("opencode", "sesame")
    with httpx.Client(base_url=server.url) as client:
        forged = client.post("/session", json={}, headers={"origin": EVIL}, auth=auth)
        anonymous = client.post("/session", json={})  # the password rule, as before
        scripted = client.post("/session", json={}, auth=auth)
        assert (forged.status_code, anonymous.status_code, scripted.status_code) == (403, 401, 200)
        assert len(client.get("/session", auth=auth).json()) == 1


def test_an_allowed_host_must_be_a_bare_name(tmp_path: Path, env: dict[str, str]) -> None:
    done = Cli(tmp_path, env)("serve", "--port", "0", "--allowed-host", "https://strata.example:8443")
    assert done.returncode == 2
    assert "--allowed-host 'https://strata.example:8443' is not a host name" in done.stderr


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:4096", "127.0.0.1"),
        ("[::1]:4096", "::1"),
        ("LocalHost", "localhost"),
        ("attacker.example.:80", "attacker.example"),
        ("::1", "::1"),
    ],
)
def test_the_host_header_is_read_without_port_brackets_or_case(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize(
    ("content_type", "has_body", "refused"),
    [
        ("application/json", True, False),
        ("application/json; charset=utf-8", True, False),
        ("application/merge-patch+json", True, False),
        (None, False, False),
        (None, True, True),
        ("text/plain", False, True),
        ("multipart/form-data; boundary=x", True, True),
    ],
)
def test_only_json_bodies_are_taken(content_type: str | None, has_body: bool, refused: bool) -> None:
    assert (media_refusal(content_type, has_body) is not None) == refused
