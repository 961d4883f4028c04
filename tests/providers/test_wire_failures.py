"""Every way a call can fail arrives as one final StreamFailed (or a retry), never as an exception."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import anyio
import httpx
import pytest
from provider_kit import WIRES, RecordedSleeps, Wire, collect, model_for, of_type, user_request

from strata_core.http import make_client
from strata_core.llm import (
    AuthenticationError,
    BadResponseError,
    ContextOverflowError,
    Finish,
    ModelError,
    ModelInfo,
    RateLimitedError,
    RetryScheduled,
    ServerError,
    ServerNotListeningError,
    StreamEvent,
    StreamFailed,
    TextDelta,
    TransportError,
)
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint, is_local_address
from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


def model_info() -> ModelInfo:
    return ModelInfo("mock", "mock-model")


def failure(events: Sequence[StreamEvent]) -> ModelError:
    assert isinstance(events[-1], StreamFailed), events
    assert not of_type(events, Finish)
    return events[-1].error


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    ("turn", "kind"),
    [
        ({"status": 401, "message": "invalid x-api-key"}, AuthenticationError),
        ({"status": 403}, AuthenticationError),
        ({"status": 429, "retry_after": 7}, RateLimitedError),
        ({"status": 529, "message": "Overloaded"}, RateLimitedError),
        ({"status": 500}, ServerError),
        ({"status": 503}, ServerError),
        ({"status": 400, "message": "prompt is too long: 250000 tokens > 200000 maximum"}, ContextOverflowError),
        ({"status": 400, "message": "This model's maximum context length is 128000 tokens."}, ContextOverflowError),
        ({"status": 400, "message": "Input exceeds the context window", "code": "context_length_exceeded"},
         ContextOverflowError),
        ({"status": 413, "message": "request too large"}, ContextOverflowError),
        ({"status": 404, "message": "no such model"}, BadResponseError),
        ({"status": 400, "message": "messages: field required"}, BadResponseError),
    ],
)  # fmt: skip
async def test_error_statuses_are_classified(
    wire: Wire, turn: dict[str, object], kind: type[ModelError], client: httpx.AsyncClient
) -> None:
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for(wire, server, client))
    error = failure(events)
    assert type(error) is kind
    assert error.status == turn["status"]
    assert str(turn["status"]) in error.message
    if "message" in turn:
        assert str(turn["message"]) in error.message
    if "retry_after" in turn:
        assert error.retry_after == 7


@pytest.mark.parametrize("wire", WIRES)
async def test_an_error_event_mid_stream_fails_the_call_after_the_output(wire: Wire, client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    turn = {"text": "partial", "stream_error": {"type": "overloaded_error", "message": "Overloaded"}}
    async with ScriptedServer([turn, {"text": "never"}]) as server:
        events = await collect(model_for(wire, server, client, retry=RetryPolicy(sleep=sleeps)))
    assert [d.text for d in of_type(events, TextDelta)] == ["partial"]
    assert isinstance(failure(events), RateLimitedError)
    assert not of_type(events, RetryScheduled) and sleeps.delays == []  # output streamed: no retry
    assert len(server.main_requests) == 1


async def test_a_context_overflow_code_in_the_stream_is_an_overflow(client: httpx.AsyncClient) -> None:
    turn = {"stream_error": {"code": "context_length_exceeded", "type": "invalid_request_error"}}
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for("chat", server, client))
    assert isinstance(failure(events), ContextOverflowError)


@pytest.mark.parametrize("wire", WIRES)
async def test_a_stream_cut_in_the_middle_is_a_transport_error(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "abcdefgh", "chunk_size": 2, "cut_after": 4}]) as server:
        events = await collect(model_for(wire, server, client, retry=RetryPolicy(sleep=RecordedSleeps())))
    assert of_type(events, TextDelta)  # some output arrived, so the cut is final
    error = failure(events)
    assert isinstance(error, TransportError)
    assert len(server.main_requests) == 1


@pytest.mark.parametrize("wire", WIRES)
async def test_a_stream_cut_before_any_output_is_retried(wire: Wire, client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    policy = RetryPolicy(sleep=sleeps, random=lambda: 0.0)
    async with ScriptedServer([{"text": "lost", "cut_after": 1}, {"text": "second try"}]) as server:
        events = await collect(model_for(wire, server, client, retry=policy))
    (retry,) = of_type(events, RetryScheduled)
    assert isinstance(retry.error, TransportError) and retry.delay == 2.0
    assert "".join(d.text for d in of_type(events, TextDelta)) == "second try"
    assert isinstance(events[-1], Finish)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    ("malformed", "says"),
    [("{not json", "invalid JSON"), ("[1, 2]", "expected a JSON object, got list")],
)
async def test_a_malformed_chunk_is_a_bad_response_naming_the_problem(
    wire: Wire, malformed: str, says: str, client: httpx.AsyncClient
) -> None:
    sleeps = RecordedSleeps()
    async with ScriptedServer([{"text": "hello", "malformed": malformed}]) as server:
        events = await collect(model_for(wire, server, client, retry=RetryPolicy(sleep=sleeps)))
    error = failure(events)
    assert isinstance(error, BadResponseError)
    assert says in error.message and malformed in error.message
    assert sleeps.delays == []  # a broken stream is not retried


@pytest.mark.parametrize(
    ("chunk", "says"),
    [
        ('{"choices": [5]}', "choices[0] is not an object"),
        ('{"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]}',
         "tool call 0 starts without a function name"),
        ('{"choices": [{"delta": {"tool_calls": ["read"]}}]}', "a tool_calls entry is not an object"),
        ('{"choices": [{"delta": 42}]}', "AttributeError"),
    ],
)  # fmt: skip
async def test_chat_chunks_of_the_wrong_shape_are_bad_responses(
    chunk: str, says: str, client: httpx.AsyncClient
) -> None:
    async with ScriptedServer([{"text": "x", "malformed": chunk}]) as server:
        events = await collect(model_for("chat", server, client))
    error = failure(events)
    assert isinstance(error, BadResponseError) and says in error.message


@pytest.mark.parametrize(
    ("event", "says"),
    [
        ('{"type": "content_block_delta", "index": 9, "delta": {"type": "text_delta", "text": "x"}}',
         "block 9, which never started"),
        ('{"type": "content_block_start", "index": "0"}', "without an integer index"),
        ('{"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use"}}',
         "tool_use block without an id and a name"),
    ],
)  # fmt: skip
async def test_messages_events_of_the_wrong_shape_are_bad_responses(
    event: str, says: str, client: httpx.AsyncClient
) -> None:
    async with ScriptedServer([{"text": "x", "malformed": event}]) as server:
        events = await collect(model_for("messages", server, client))
    error = failure(events)
    assert isinstance(error, BadResponseError) and says in error.message


@pytest.mark.parametrize(
    ("content_type", "body", "kind", "says"),
    [
        ("application/json", b'{"id": "x", "choices": []}', BadResponseError, "expected an event stream"),
        ("application/json", b'{"error": {"message": "quota", "code": "insufficient_quota"}}', RateLimitedError,
         "Quota exceeded"),
        ("text/html", b"<html>hi</html>", BadResponseError, "got text/html"),
    ],
)  # fmt: skip
async def test_a_success_status_without_an_event_stream_is_reported(
    content_type: str, body: bytes, kind: type[ModelError], says: str
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": content_type}, content=body)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        model = OpenAIChatModel(model_info(), Endpoint("http://127.0.0.1:9/v1"), lambda: client)
        error = failure(await collect(model))
    assert type(error) is kind and says in error.message
    assert not error.retryable


@pytest.mark.parametrize("wire", WIRES)
async def test_retry_after_is_honoured_before_trying_again(wire: Wire, client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    async with ScriptedServer([{"status": 429, "retry_after": 1}, {"text": "ok"}]) as server:
        events = await collect(model_for(wire, server, client, retry=RetryPolicy(sleep=sleeps)))
    (retry,) = of_type(events, RetryScheduled)
    assert retry.attempt == 1 and retry.delay == 1.0 and isinstance(retry.error, RateLimitedError)
    assert sleeps.delays == [1.0]
    assert isinstance(events[-1], Finish) and len(server.main_requests) == 2
    assert events.index(retry) == 0  # announced before anything else


@pytest.mark.parametrize("wire", WIRES)
async def test_retry_after_ms_wins_over_retry_after(wire: Wire, client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    async with ScriptedServer([{"status": 529, "retry_after": 9, "retry_after_ms": 250}, {"text": "ok"}]) as server:
        await collect(model_for(wire, server, client, retry=RetryPolicy(sleep=sleeps)))
    assert sleeps.delays == [0.25]


async def test_without_headers_the_backoff_doubles_from_two_seconds(client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    policy = RetryPolicy(sleep=sleeps, random=lambda: 0.0)
    async with ScriptedServer([{"status": 500}, {"status": 503}, {"status": 502}, {"text": "ok"}]) as server:
        events = await collect(model_for("chat", server, client, retry=policy))
    assert sleeps.delays == [2.0, 4.0, 8.0]
    assert [r.attempt for r in of_type(events, RetryScheduled)] == [1, 2, 3]
    assert isinstance(events[-1], Finish)


async def test_after_the_last_attempt_the_error_is_reported(client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    policy = RetryPolicy(max_attempts=3, sleep=sleeps)
    async with ScriptedServer([{"status": 500}] * 5) as server:
        events = await collect(model_for("messages", server, client, retry=policy))
    assert len(of_type(events, RetryScheduled)) == 2
    assert isinstance(failure(events), ServerError)
    assert len(server.main_requests) == 3


@pytest.mark.parametrize("turn", [{"status": 401}, {"status": 400, "message": "prompt is too long"}])
async def test_errors_that_waiting_cannot_fix_are_not_retried(
    turn: dict[str, object], client: httpx.AsyncClient
) -> None:
    sleeps = RecordedSleeps()
    async with ScriptedServer([turn, {"text": "never"}]) as server:
        events = await collect(model_for("chat", server, client, retry=RetryPolicy(sleep=sleeps)))
    assert not of_type(events, RetryScheduled) and sleeps.delays == []
    assert len(server.main_requests) == 1


async def test_a_provider_asking_for_a_very_long_wait_gets_the_error_instead(client: httpx.AsyncClient) -> None:
    sleeps = RecordedSleeps()
    async with ScriptedServer([{"status": 429, "retry_after": 3600}, {"text": "never"}]) as server:
        events = await collect(model_for("chat", server, client, retry=RetryPolicy(sleep=sleeps)))
    assert isinstance(failure(events), RateLimitedError) and sleeps.delays == []


def free_port() -> int:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_refused_local_connection_fails_at_once_naming_the_provider_and_its_base_url(
    client: httpx.AsyncClient,
) -> None:
    base_url = f"http://127.0.0.1:{free_port()}/v1"
    sleeps = RecordedSleeps()
    model = OpenAIChatModel(model_info(), Endpoint(base_url), lambda: client, RetryPolicy(sleep=sleeps))
    events = await collect(model)
    assert not of_type(events, RetryScheduled) and sleeps.delays == []
    error = failure(events)
    assert isinstance(error, ServerNotListeningError) and not error.retryable
    assert f'provider "{model_info().provider_id}"' in error.message and f"baseURL {base_url}" in error.message
    assert f"provider.{model_info().provider_id}.options.baseURL" in error.message


@pytest.mark.parametrize(
    ("host", "local"),
    [("localhost", True), ("127.0.0.1", True), ("[::1]", True), ("192.168.1.20", True), ("10.0.0.7", True),
     ("169.254.1.1", True), ("gpu-box", True), ("nas.local", True), ("llm.internal", True), ("Box.LAN.", True),
     ("api.openai.com", False), ("models.example.com", False), ("8.8.8.8", False)],
)  # fmt: skip
def test_only_this_machine_and_private_networks_count_as_local(host: str, local: bool) -> None:
    assert is_local_address(host) is local


async def test_a_refused_remote_connection_is_still_a_retried_transport_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("All connection attempts failed") from ConnectionRefusedError(111, "refused")

    sleeps = RecordedSleeps()
    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
        endpoint = Endpoint("https://models.example.com/v1")
        events = await collect(OpenAIChatModel(model_info(), endpoint, lambda: client, RetryPolicy(sleep=sleeps)))
    assert len(of_type(events, RetryScheduled)) == 3 and len(sleeps.delays) == 3
    error = failure(events)
    assert type(error) is TransportError and "models.example.com" in error.message


async def test_a_stream_that_goes_quiet_fails_on_the_idle_read_timeout() -> None:
    async with (
        ScriptedServer([{"text": "thinking...", "hang": True}]) as server,
        make_client(read_timeout=0.5) as client,
    ):
        events = await collect(model_for("chat", server, client))
    assert of_type(events, TextDelta)
    error = failure(events)
    assert isinstance(error, TransportError) and "idle read timeout" in error.message


@pytest.mark.parametrize("wire", WIRES)
async def test_cancelling_mid_stream_closes_the_connection(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "first words", "hang": True}]) as server:
        model = model_for(wire, server, client)
        seen = []
        with anyio.CancelScope() as scope:
            async with model.stream(user_request()) as events:
                async for event in events:
                    seen.append(event)
                    if isinstance(event, TextDelta):
                        scope.cancel()
        assert scope.cancelled_caught
        assert of_type(seen, TextDelta) and not of_type(seen, Finish) and not of_type(seen, StreamFailed)
        with anyio.fail_after(5):
            await server.wait_for_disconnect(server.main_requests[0])


@pytest.mark.parametrize("wire", WIRES)
async def test_leaving_the_stream_early_closes_the_connection(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "a b c d e f", "chunk_size": 2, "hang": True}]) as server:
        async with model_for(wire, server, client).stream(user_request()) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    break
        with anyio.fail_after(5):
            await server.wait_for_disconnect(server.main_requests[0])


async def test_cancelling_during_a_retry_wait_stops_at_once(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"status": 429, "retry_after": 30}, {"text": "never"}]) as server:
        model = model_for("chat", server, client, retry=RetryPolicy())  # the real, cancellable anyio.sleep
        with anyio.CancelScope() as scope:
            async with model.stream(user_request()) as events:
                async for event in events:
                    if isinstance(event, RetryScheduled):
                        scope.cancel()
        assert scope.cancelled_caught
    assert len(server.main_requests) == 1
