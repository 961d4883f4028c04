"""The in-process scripted model: same script, same events and failures as the HTTP wires, loud when short."""

from __future__ import annotations

import contextlib

import anyio
import httpx
import pytest
from provider_kit import TITLE_REQUEST, collect, finish_of, info_for, model_for, of_type, user_request

from strata_core.llm import (
    BadResponseError,
    ContextOverflowError,
    Finish,
    LanguageModel,
    ModelError,
    ModelInfo,
    RateLimitedError,
    ReasoningEnd,
    RetryScheduled,
    StreamEvent,
    StreamFailed,
    TextDelta,
    ToolCall,
    TransportError,
)
from strata_providers.retry import NO_RETRIES
from strata_providers.testing import ScriptedModel, ScriptedServer, ScriptExhaustedError

pytestmark = pytest.mark.anyio


async def test_it_plays_the_script_and_records_every_request() -> None:
    model = ScriptedModel([{"text": "one"}, {"tool_calls": [{"name": "read", "arguments": {"filePath": "a"}}]}])
    first = await collect(model, user_request("first"))
    second = await collect(model, user_request("second"))
    assert "".join(e.text for e in of_type(first, TextDelta)) == "one" and finish_of(first).reason == "stop"
    (call,) = of_type(second, ToolCall)
    assert (call.tool_name, call.input, call.call_id) == ("read", {"filePath": "a"}, "call_1_0")
    assert [r.messages[0].content[0].text for r in model.requests] == ["first", "second"]  # type: ignore[union-attr]
    assert model.main_requests == model.requests and model.turns_used == 2


async def test_a_call_after_the_last_turn_fails_loudly_naming_the_request() -> None:
    model = ScriptedModel([{"text": "only"}])
    await collect(model)
    await collect(model, TITLE_REQUEST)  # titles do not count
    expected = r"the script ran out: turn #2 was asked for \(by requests\[2\]\), but the script has only 1 turn"
    with pytest.raises(ScriptExhaustedError, match=expected):
        await collect(model)


async def test_the_exhaustion_error_says_which_turn_was_asked_for_and_how_many_there_were() -> None:
    model = ScriptedModel([{"text": "only"}])
    await collect(model)
    with pytest.raises(ScriptExhaustedError) as caught:
        await collect(model)
    error = caught.value
    assert (error.source, error.turn, error.script_length, error.request_index) == ("ScriptedModel", 2, 1, 1)
    assert model.requests[error.request_index] is model.main_requests[1]


async def test_a_retry_that_finds_the_script_exhausted_raises_instead_of_retrying_again() -> None:
    model = ScriptedModel([{"status": 503}])  # retryable: the retry asks for turn 2, which is not there
    with pytest.raises(ScriptExhaustedError, match=r"turn #2 was asked for"):
        await collect(model)
    assert model.turns_used == 2 and len(model.unscripted) == 1


async def test_assert_script_consumed_reports_an_exhaustion_even_when_it_was_swallowed() -> None:
    model = ScriptedModel([{"text": "only"}])
    await collect(model)
    with contextlib.suppress(ScriptExhaustedError):  # as a catch-all in the code under test would
        await collect(model)
    with pytest.raises(ScriptExhaustedError, match=r"turn #2"):
        model.assert_script_consumed()


async def test_assert_script_consumed_names_the_turns_never_asked_for() -> None:
    model = ScriptedModel([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    await collect(model)
    with pytest.raises(AssertionError, match=r"2 of 3 scripted turn\(s\) were never asked for.*turn #2.*'two'"):
        model.assert_script_consumed()
    await collect(model)
    await collect(model)
    model.assert_script_consumed()


async def test_title_requests_get_the_title_without_consuming_a_turn() -> None:
    model = ScriptedModel([{"text": "main"}], title_text="A title")
    title = await collect(model, TITLE_REQUEST)
    assert "".join(e.text for e in of_type(title, TextDelta)) == "A title"
    assert model.title_requests == [TITLE_REQUEST] and model.turns_used == 0


async def test_errors_are_retried_like_the_wires_do_without_waiting() -> None:
    model = ScriptedModel([{"status": 429, "retry_after": 3}, {"text": "after the wait"}])
    events = await collect(model)
    (retry,) = of_type(events, RetryScheduled)
    assert retry.delay == 3.0 and isinstance(retry.error, RateLimitedError)
    assert isinstance(events[-1], Finish) and model.turns_used == 2


async def test_without_retries_an_error_turn_is_the_streams_failure() -> None:
    model = ScriptedModel([{"status": 400, "message": "prompt is too long: 9 > 8"}], retry=NO_RETRIES)
    events = await collect(model)
    assert len(events) == 1 and isinstance(events[0], StreamFailed)
    assert isinstance(events[0].error, ContextOverflowError)


@pytest.mark.parametrize(
    ("turn", "kind"),
    [
        ({"text": "abcdef", "chunk_size": 1, "cut_after": 3}, TransportError),
        ({"text": "abc", "malformed": "{oops"}, BadResponseError),
        ({"text": "abc", "stream_error": {"type": "overloaded_error"}}, RateLimitedError),
    ],
)
async def test_scripted_stream_failures_end_the_stream(turn: dict[str, object], kind: type[ModelError]) -> None:
    events = await collect(ScriptedModel([turn], retry=NO_RETRIES))
    assert isinstance(events[-1], StreamFailed) and type(events[-1].error) is kind
    assert not of_type(events, Finish)


async def test_a_hanging_turn_waits_until_cancelled() -> None:
    model = ScriptedModel([{"text": "partial", "hang": True}])
    seen: list[StreamEvent] = []
    with anyio.CancelScope() as scope:
        async with model.stream(user_request()) as events:
            async for event in events:
                seen.append(event)
                if isinstance(event, TextDelta):
                    scope.cancel()
    assert scope.cancelled_caught and not of_type(seen, Finish)


async def test_reasoning_is_signed_only_when_the_model_speaks_messages() -> None:
    turn = {"reasoning": "think", "text": "ok"}
    plain = await collect(ScriptedModel([turn]))
    claude = await collect(ScriptedModel([turn], info=ModelInfo("mock", "claude", npm="@ai-sdk/anthropic")))
    assert of_type(plain, ReasoningEnd)[0].provider_metadata is None
    assert of_type(claude, ReasoningEnd)[0].provider_metadata == {"anthropic": {"signature": "sig_0"}}


@pytest.mark.parametrize(
    "turn",
    [
        {"reasoning": "Let me think about it.", "text": "Here it is.", "chunk_size": 4},
        {"text": "On it.", "tool_calls": [{"name": "read", "arguments": {"filePath": "x"}},
                                           {"name": "glob", "arguments": {"pattern": "*"}}], "chunk_size": 5},
        {"text": "partial", "stream_error": {"type": "api_error", "message": "boom"}},
        {"text": "abcdef", "chunk_size": 2, "cut_after": 3},
        {"text": "abc", "malformed": "{oops"},
        {"status": 401},
    ],
)  # fmt: skip
async def test_the_same_turn_gives_the_same_events_in_process_and_over_http(
    turn: dict[str, object], client: httpx.AsyncClient
) -> None:
    for wire in ("chat", "messages"):
        info = info_for(wire)
        in_process = await collect(ScriptedModel([turn], info=info, retry=NO_RETRIES))
        async with ScriptedServer([turn]) as server:
            over_http = await collect(model_for(wire, server, client))
        assert shape(in_process) == shape(over_http)


def shape(events: list[StreamEvent]) -> list[object]:
    """Events as data; a failure as its kind only (a transport error's message names how the bytes stopped)."""
    return [("failed", type(e.error).__name__) if isinstance(e, StreamFailed) else e for e in events]


def test_a_scripted_model_is_a_language_model() -> None:
    model: LanguageModel = ScriptedModel([])
    assert model.info.ref == "scripted/scripted-model"
