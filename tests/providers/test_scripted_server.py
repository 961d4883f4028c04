"""The scripted server as tests (ours and users') use it: recording, titles, script edge cases, threads."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import httpx
import pytest
from provider_kit import WIRES, RecordedSleeps, Wire, collect, model_for, of_type, user_request

from strata_core.llm import BadResponseError, StreamFailed, TextContent, TextDelta, ToolCall, UserModelMessage
from strata_providers.retry import RetryPolicy
from strata_providers.testing import (
    SCRIPT_EXHAUSTED_CODE,
    ScriptedServer,
    ScriptedToolCall,
    ScriptError,
    ScriptExhaustedError,
    Turn,
)
from strata_providers.testing.wire_events import sse_events

pytestmark = pytest.mark.anyio
ORACLE_SERVER = Path("/work/shared/oracle/scripted_server.py")
STRATA_TITLE_SYSTEM = "You are a title generator: you name conversations."


def text_of(events: list) -> str:  # type: ignore[type-arg]
    return "".join(e.text for e in of_type(events, TextDelta))


@pytest.mark.parametrize("wire", WIRES)
async def test_every_request_is_recorded_with_path_headers_and_body(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "one"}, {"text": "two"}]) as server:
        model = model_for(wire, server, client)
        first = await collect(model, user_request("first"))
        second = await collect(model, user_request("second"))
    assert (text_of(first), text_of(second)) == ("one", "two")
    assert [r.index for r in server.requests] == [0, 1] and server.turns_used == 2
    recorded = server.main_requests[1]
    assert recorded.method == "POST" and recorded.wire == wire
    assert recorded.path.endswith("/chat/completions" if wire == "chat" else "/messages")
    assert recorded.headers["content-type"] == "application/json"
    assert "second" in json.dumps(recorded.body["messages"])
    assert recorded.turn == Turn(text="two") and not recorded.is_title


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("system", ["You are a title generator. You output ONLY a thread title.", STRATA_TITLE_SYSTEM])
async def test_title_requests_are_answered_without_consuming_a_turn(
    wire: Wire, system: str, client: httpx.AsyncClient
) -> None:
    async with ScriptedServer([{"text": "main answer"}]) as server:
        model = model_for(wire, server, client)
        title = await collect(model, user_request("fix the bug").__class__(system=(system,), messages=(
            UserModelMessage((TextContent("Generate a title for this conversation:\n"),)),)))  # fmt: skip
        main = await collect(model, user_request("fix the bug"))
    assert text_of(title) == "Scripted title" and text_of(main) == "main answer"
    assert [r.is_title for r in server.requests] == [True, False]
    assert len(server.title_requests) == 1 and len(server.main_requests) == 1 and server.turns_used == 1


async def test_the_title_marker_and_answer_are_configurable(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([], title_markers=["<name-this>"], title_text="My title") as server:
        events = await collect(model_for("chat", server, client), user_request().__class__(
            system=("<NAME-THIS> conversation",), messages=()))  # fmt: skip
    assert text_of(events) == "My title" and server.turns_used == 0


@pytest.mark.parametrize("wire", WIRES)
async def test_a_request_after_the_last_turn_fails_at_once_without_a_retry(
    wire: Wire, client: httpx.AsyncClient
) -> None:
    sleeps = RecordedSleeps()
    with pytest.raises(ScriptExhaustedError) as caught:
        async with ScriptedServer([{"text": "only"}]) as server:
            model = model_for(wire, server, client, retry=RetryPolicy(sleep=sleeps))  # retries allowed
            await collect(model)
            events = await collect(model)
            (failed,) = events
            assert isinstance(failed, StreamFailed) and isinstance(failed.error, BadResponseError)
            assert failed.error.status == 400 and not failed.error.retryable
            assert "ScriptedServer: the script ran out: turn #2 was asked for" in failed.error.message
            assert len(server.main_requests) == 2 and sleeps.delays == []
    # Leaving the server raised it, though the client only saw a failed stream.
    error = caught.value
    assert (error.source, error.turn, error.script_length, error.request_index) == ("ScriptedServer", 2, 1, 1)
    assert server.unscripted == [error] and server.main_requests[1].turn is not None
    assert server.main_requests[1].turn.code == SCRIPT_EXHAUSTED_CODE


async def test_assert_script_consumed_reports_an_unscripted_request_once(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([]) as server:
        await collect(model_for("chat", server, client))
        with pytest.raises(ScriptExhaustedError, match=r"turn #1 was asked for \(by requests\[0\]\)"):
            server.assert_script_consumed()
    # reported already, so leaving the server did not raise it again


async def test_assert_script_consumed_names_the_turns_never_asked_for(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "one"}, {"text": "two"}]) as server:
        await collect(model_for("chat", server, client))
        with pytest.raises(AssertionError, match=r"1 of 2 scripted turn\(s\) were never asked for"):
            server.assert_script_consumed()
        await collect(model_for("chat", server, client))
        server.assert_script_consumed()


async def test_an_error_leaving_the_server_is_not_masked_by_an_unscripted_request(client: httpx.AsyncClient) -> None:
    with pytest.raises(KeyError, match="the test's own failure"):
        async with ScriptedServer([]) as server:
            await collect(model_for("chat", server, client))
            raise KeyError("the test's own failure")
    assert len(server.unscripted) == 1


def test_leaving_a_synchronous_server_raises_for_an_unscripted_request() -> None:
    with pytest.raises(ScriptExhaustedError, match="ScriptedServer: the script ran out"), ScriptedServer([]) as server:
        request = urllib.request.Request(f"{server.base_url}/chat/completions", data=b'{"messages": []}')
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=10)
        assert answer.value.code == 400


async def test_done_text_answers_requests_after_the_script_like_the_oracle(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "only"}], done_text="Done.") as server:
        model = model_for("chat", server, client)
        await collect(model)
        events = await collect(model)
    assert text_of(events) == "Done." and server.unscripted == []


async def test_turns_can_be_values_with_explicit_tool_call_ids(client: httpx.AsyncClient) -> None:
    turn = Turn(tool_calls=(ScriptedToolCall("read", {"filePath": "a"}, id="call_fixed"),))
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for("chat", server, client))
    assert of_type(events, ToolCall)[0].call_id == "call_fixed"


def test_a_misspelt_turn_is_rejected_naming_the_turn_and_the_key() -> None:
    with pytest.raises(ScriptError, match=r"turn 1: unknown key\(s\) \['txt'\]"):
        ScriptedServer([{"text": "ok"}, {"txt": "oops"}])


async def test_models_listing_and_unknown_routes(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([]) as server:
        listing = await client.get(f"{server.base_url}/models")
        missing = await client.post(f"{server.base_url}/completions", json={})
    assert listing.json()["data"][0]["id"] == "scripted"
    assert missing.status_code == 404 and server.turns_used == 0
    assert [r.wire for r in server.requests] == [None, None] and server.main_requests == []


async def test_chunks_can_be_spaced_out_by_a_delay(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "slow", "chunk_size": 1, "delay": 0.005}]) as server:
        events = await collect(model_for("messages", server, client))
    assert [d.text for d in of_type(events, TextDelta)] == ["s", "l", "o", "w"]


async def test_it_answers_while_the_test_blocks_on_a_subprocess() -> None:
    # What an end-to-end test does: run the CLI synchronously while the server serves it.
    code = (
        "import sys, urllib.request; r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=b'{}', "
        "headers={'content-type': 'application/json'})); print(r.read().decode())"
    )
    async with ScriptedServer([{"text": "from a subprocess"}]) as server:
        done = subprocess.run(  # noqa: ASYNC221 - blocking on purpose
            [sys.executable, "-c", code, f"{server.base_url}/chat/completions"],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
    assert "from a subprocess" in done.stdout and "data: [DONE]" in done.stdout


def test_it_works_from_synchronous_code() -> None:
    with ScriptedServer([{"text": "sync"}]) as server:
        request = urllib.request.Request(f"{server.base_url}/messages", data=b'{"messages": []}')
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read().decode()
    assert "event: message_stop" in body and '"text": "sync"' in body
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url


@pytest.mark.skipif(not ORACLE_SERVER.exists(), reason="the shared oracle is not on this machine")
@pytest.mark.parametrize("wire", WIRES)
def test_streams_have_the_oracle_servers_shape(wire: Wire) -> None:
    spec = importlib.util.spec_from_file_location("oracle_server", ORACLE_SERVER)
    assert spec and spec.loader
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    turn = {"reasoning": "think", "text": "say", "tool_calls": [{"name": "read", "arguments": {"filePath": "a"}}]}
    ours = frames([frame.decode() for frame in sse_events(Turn.from_json(turn), wire, 3, "m")])
    if wire == "chat":
        theirs = frames([f"data: {json.dumps(d)}\n\n" for d in oracle.openai_events(turn, 3, "m")] + ["data: [DONE]"])
    else:
        theirs = frames([f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in oracle.anthropic_events(turn, 3, "m")])
    assert ours == theirs


def frames(events: list[str]) -> list[object]:
    """Each frame's data, without what is expected to differ (timestamps, token counts)."""
    parsed: list[object] = []
    for frame in events:
        data = frame.split("data: ", 1)[1].strip()
        if data == "[DONE]":
            parsed.append(data)
            continue
        payload = json.loads(data)
        payload.pop("created", None)
        payload.pop("usage", None)
        payload.get("message", {}).pop("usage", None)
        parsed.append(payload)
    return parsed
