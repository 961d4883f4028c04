"""A finished stream hands its connection back: the next call of a turn reuses it instead of connecting (and,
over TLS, shaking hands) again, as OpenCode's client does; a server that never ends the body cannot hold the
call."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest
from anyio.abc import SocketAttribute, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from provider_kit import WIRES, Wire, collect, info_for, of_type

from strata_core.llm import LanguageModel, StreamFailed, TextDelta
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.deadlines import Deadlines
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint
from strata_providers.testing import Turn
from strata_providers.testing.http import read_request
from strata_providers.testing.wire_events import sse_events

pytestmark = pytest.mark.anyio

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


class KeepAliveServer:
    """Answers every request on a connection with one streamed text, keeping the connection open; counts
    connections. With `end_body=False` the body is never ended (no last chunk), as a broken proxy might; with
    `cut_body` the connection is closed right after the answer, without the body's last chunk."""

    def __init__(self, wire: Wire, end_body: bool = True, cut_body: bool = False) -> None:
        self.wire = wire
        self.end_body = end_body and not cut_body
        self.cut_body = cut_body
        self.connections = 0
        self.requests = 0

    async def serve(self, stream: SocketStream) -> None:
        self.connections += 1
        receive = BufferedByteReceiveStream(stream)
        async with stream:
            while (await read_request(receive)) is not None:
                self.requests += 1
                events = sse_events(Turn(text="Hello there"), self.wire, self.requests, "m")
                chunks = b"".join(b"%x\r\n%s\r\n" % (len(event), event) for event in events)
                await stream.send(HEAD + chunks + (b"0\r\n\r\n" if self.end_body else b""))
                if self.cut_body:
                    return
                if not self.end_body:
                    await anyio.sleep_forever()


@asynccontextmanager
async def serving(server: KeepAliveServer) -> AsyncIterator[str]:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(SocketAttribute.local_port)
    async with anyio.create_task_group() as group:
        group.start_soon(listener.serve, server.serve)
        try:
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            group.cancel_scope.cancel()


def model(wire: Wire, base_url: str, client: httpx.AsyncClient, deadlines: Deadlines | None = None) -> LanguageModel:
    endpoint = Endpoint(base_url, "test-key", deadlines=deadlines or Deadlines())
    get_client: Callable[[], httpx.AsyncClient] = lambda: client  # noqa: E731
    if wire == "chat":
        return OpenAIChatModel(info_for(wire), endpoint, get_client, RetryPolicy(max_attempts=1))
    return AnthropicMessagesModel(info_for(wire), endpoint, get_client, RetryPolicy(max_attempts=1))


@pytest.mark.parametrize("wire", WIRES)
async def test_consecutive_calls_share_one_connection(wire: Wire, client: httpx.AsyncClient) -> None:
    server = KeepAliveServer(wire)
    async with serving(server) as base_url:
        for _ in range(3):
            with anyio.fail_after(10):
                events = await collect(model(wire, base_url, client))
            assert "".join(delta.text for delta in of_type(events, TextDelta)) == "Hello there"
    assert server.requests == 3
    assert server.connections == 1


@pytest.mark.parametrize("wire", WIRES)
async def test_a_body_left_open_after_the_answer_does_not_hold_the_call(wire: Wire, client: httpx.AsyncClient) -> None:
    server = KeepAliveServer(wire, end_body=False)
    async with serving(server) as base_url:
        for _ in range(2):
            with anyio.fail_after(10):
                events = await collect(model(wire, base_url, client))
            assert "".join(delta.text for delta in of_type(events, TextDelta)) == "Hello there"
    assert server.requests == 2
    assert server.connections == 2  # the unfinished body's connection could not be reused


@pytest.mark.parametrize("wire", WIRES)
async def test_a_body_broken_off_after_the_answer_keeps_the_answer(wire: Wire, client: httpx.AsyncClient) -> None:
    server = KeepAliveServer(wire, cut_body=True)
    async with serving(server) as base_url:
        with anyio.fail_after(10):
            events = await collect(model(wire, base_url, client))
    assert "".join(delta.text for delta in of_type(events, TextDelta)) == "Hello there"
    assert not of_type(events, StreamFailed) and server.requests == 1


@pytest.mark.parametrize("wire", WIRES)
async def test_a_deadline_passing_while_a_finished_stream_drains_is_no_failure(
    wire: Wire, client: httpx.AsyncClient
) -> None:
    # The answer is complete; the body stays open, and the chunk deadline (0.15 s) passes during the drain's
    # grace (0.25 s): the watchdog ends the reading, and that is the drain's end, not a model that went silent.
    # (Long enough that a loaded machine's pause while the answer is read does not pass it.)
    server = KeepAliveServer(wire, end_body=False)
    async with serving(server) as base_url:
        with anyio.fail_after(10):
            events = await collect(model(wire, base_url, client, Deadlines(chunk=0.15)))
    assert "".join(delta.text for delta in of_type(events, TextDelta)) == "Hello there"
    assert not of_type(events, StreamFailed), of_type(events, StreamFailed)
