"""The TUI control channel (`/tui/*`): each SDK call publishes the `tui.*` event OpenCode 1.18.33 publishes, so a
TUI attached over `/event` acts on it; `control/next` and `control/response` are OpenCode's request queue."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from server_harness import (
    OPENCODE,
    ORACLE,
    WAIT_SECONDS,
    ServeFactory,
    following,
    opencode_serve,
    run_sdk_script,
    sdk_missing,
)

from strata_server.tui_control import TuiControl

HERE = Path(__file__).parent
TUI_V1 = HERE / "sdk" / "tui-v1.mjs"
EXPECTED = (
    "tui: ok tui.prompt.append:hello from the sdk tui.command.execute:prompt.submit "
    "tui.command.execute:agent.cycle tui.toast.show:done"
)


def exactly(kind: str, properties: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["type"] == kind and e["properties"] == properties


def of_type(kind: str, **properties: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["type"] == kind and all(e["properties"].get(k) == v for k, v in properties.items())


def test_each_tui_route_publishes_opencodes_event(serve: ServeFactory) -> None:
    server = serve([])
    calls: list[tuple[str, dict[str, Any] | None, str, dict[str, Any]]] = [
        ("/tui/append-prompt", {"text": "hi"}, "tui.prompt.append", {"text": "hi"}),
        ("/tui/submit-prompt", None, "tui.command.execute", {"command": "prompt.submit"}),
        ("/tui/clear-prompt", None, "tui.command.execute", {"command": "prompt.clear"}),
        ("/tui/open-help", None, "tui.command.execute", {"command": "help.show"}),
        ("/tui/open-sessions", None, "tui.command.execute", {"command": "session.list"}),
        ("/tui/open-themes", None, "tui.command.execute", {"command": "session.list"}),
        ("/tui/open-models", None, "tui.command.execute", {"command": "model.list"}),
        ("/tui/execute-command", {"command": "messages_first"}, "tui.command.execute", {"command": "session.first"}),
        ("/tui/execute-command", {"command": "session.list"}, "tui.command.execute", {"command": "session.list"}),
        (
            "/tui/show-toast",
            {"message": "m", "variant": "error", "duration": 100},
            "tui.toast.show",
            {"message": "m", "variant": "error", "duration": 100},
        ),
        (
            "/tui/publish",
            {"type": "tui.toast.show", "properties": {"message": "p", "variant": "info"}},
            "tui.toast.show",
            {"message": "p", "variant": "info", "duration": 5000},
        ),
    ]
    with following(server.url) as wait, httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        for path, body, kind, properties in calls:
            answer = client.post(path, json=body) if body is not None else client.post(path)
            assert (path, answer.status_code, answer.json()) == (path, 200, True)
            event = wait(exactly(kind, properties))
            assert event["id"].startswith("evt_")


def test_select_session_names_a_session_that_exists(serve: ServeFactory) -> None:
    server = serve([])
    with following(server.url) as wait, httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        session_id = client.post("/session", json={}).json()["id"]
        missing = client.post("/tui/select-session", json={"sessionID": "ses_nope"})
        chosen = client.post("/tui/select-session", json={"sessionID": session_id})
        wait(of_type("tui.session.select", sessionID=session_id))
    assert (missing.status_code, missing.json()["name"]) == (404, "NotFoundError")
    assert chosen.json() is True


def test_a_tui_call_with_a_bad_body_is_refused(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        toast = client.post("/tui/show-toast", json={"message": "no variant"})
        append = client.post("/tui/append-prompt", json={})
    assert (toast.status_code, append.status_code) == (400, 400)
    assert "variant" in toast.json()["data"]["message"] and "text" in append.json()["data"]["message"]


def test_the_global_stream_carries_tui_events_with_the_directory(serve: ServeFactory, project: Path) -> None:
    server = serve([])
    with following(server.url, "/global/event") as wait, httpx.Client(base_url=server.url) as client:
        client.post("/tui/append-prompt", json={"text": "x"})
        event = wait(lambda e: e.get("payload", {}).get("type") == "tui.prompt.append")
    assert event["directory"] == str(project) and event["payload"]["properties"] == {"text": "x"}


def test_control_response_is_taken(serve: ServeFactory) -> None:
    server = serve([])
    with httpx.Client(base_url=server.url, timeout=WAIT_SECONDS) as client:
        assert client.post("/tui/control/response", json={"ok": True}).json() is True


@pytest.mark.anyio
async def test_the_control_queue_hands_each_request_to_the_next_poll_and_returns_its_response() -> None:
    control = TuiControl()
    answers: list[Any] = []
    async with anyio.create_task_group() as group:

        async def caller() -> None:
            answers.append(await control.call("/tui/exercise", {"text": "queued"}))

        group.start_soon(caller)
        request = await control.next()
        control.respond({"done": True})
    assert request.as_json() == {"path": "/tui/exercise", "body": {"text": "queued"}}
    assert answers == [{"done": True}]


@pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")
def test_the_sdk_drives_an_attached_tui_through_strata_serve(serve: ServeFactory) -> None:
    server = serve([])
    done = run_sdk_script(TUI_V1, server.url)
    assert done.returncode == 0, done.stderr + done.stdout + "".join(server.output)
    assert done.stdout.strip() == EXPECTED


@pytest.mark.slow
@pytest.mark.opencode_live
@pytest.mark.skipif(sdk_missing() is not None, reason=sdk_missing() or "")
@pytest.mark.skipif(not OPENCODE.exists(), reason=f"OpenCode 1.18.33 is not installed at {OPENCODE}")
@pytest.mark.skipif(not (ORACLE / "serve.sh").exists(), reason=f"no oracle serve.sh at {ORACLE}")
def test_the_same_sdk_script_passes_against_opencode_serve(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text("[]", encoding="utf-8")
    with opencode_serve(tmp_path, script) as server:
        done = run_sdk_script(TUI_V1, server.url)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip() == EXPECTED
