"""The body is read by a task of its own (`stream_reader.py`): what the consumer sees must not show it."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import httpx
import pytest
from provider_kit import WIRES, Wire, finish_of, model_for, of_type, user_request

from strata_core.llm import StreamEvent, StreamFailed, TextDelta
from strata_providers.deadlines import Deadlines
from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("wire", WIRES)
async def test_a_slow_consumer_gets_every_event_in_order(wire: Wire, client: httpx.AsyncClient) -> None:
    # 3,000 deltas sent at once: the reader runs far ahead of a consumer that yields after each event, and
    # must wait for it (it holds at most a few hundred batches) without losing or reordering one.
    text = "".join(f"{i:04d}" for i in range(3000))
    async with ScriptedServer([{"text": text, "chunk_size": 4}]) as server:
        seen: list[StreamEvent] = []
        with anyio.fail_after(30):  # a hand-over that never wakes the reader again would hang here
            async with model_for(wire, server, client).stream(user_request()) as events:
                async for event in events:
                    seen.append(event)
                    await anyio.lowlevel.checkpoint()
    assert [delta.text for delta in of_type(seen, TextDelta)] == [f"{i:04d}" for i in range(3000)]
    assert finish_of(seen).reason == "stop"


@pytest.mark.parametrize("wire", WIRES)
async def test_time_the_reader_waits_on_a_slow_consumer_is_not_the_models_silence(
    wire: Wire, client: httpx.AsyncClient
) -> None:
    # Everything is sent at once; the consumer stops for three chunk deadlines after its first event, so the
    # reader fills its hand-over queue and waits. Only the model's silence may fail the call, and it sent all.
    # (The deadline is long enough that a loaded machine's pauses do not pass it on their own.)
    text = "".join(f"{i:04d}" for i in range(3000))
    async with ScriptedServer([{"text": text, "chunk_size": 4}]) as server:
        seen: list[StreamEvent] = []
        with anyio.fail_after(30):
            async with model_for(wire, server, client, deadlines=Deadlines(chunk=0.5)).stream(user_request()) as events:
                async for event in events:
                    if not seen:
                        await anyio.sleep(1.5)
                    seen.append(event)
    assert not of_type(seen, StreamFailed), of_type(seen, StreamFailed)
    assert [delta.text for delta in of_type(seen, TextDelta)] == [f"{i:04d}" for i in range(3000)]


@pytest.mark.parametrize("wire", WIRES)
async def test_the_consumers_own_error_comes_out_as_itself(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "a b c d", "chunk_size": 2, "hang": True}]) as server:
        with pytest.raises(LookupError, match="the consumer's"):
            async with model_for(wire, server, client).stream(user_request()) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        raise LookupError("the consumer's")
        with anyio.fail_after(5):
            await server.wait_for_disconnect(server.main_requests[0])


async def test_the_consumers_error_keeps_its_cause(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "a b c d", "chunk_size": 2}]) as server:
        with pytest.raises(LookupError) as raised:
            async with model_for("chat", server, client).stream(user_request()) as events:
                async for _ in events:
                    try:
                        raise KeyError("first")
                    except KeyError as exc:
                        raise LookupError("second") from exc
    assert isinstance(raised.value.__cause__, KeyError)
    assert not isinstance(raised.value.__context__, BaseExceptionGroup)
