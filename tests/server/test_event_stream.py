"""The event stream's shapes and fan-out, in process: OpenCode's event types from the core's bus events, one
shaping per event for every client, and clients that leave or fall behind cost the server nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from anyio import wait_all_tasks_blocked

from strata_core import bus as b
from strata_core.clock import FrozenClock
from strata_core.ids import Ids
from strata_core.message import TextPart
from strata_core.session.memory_store import MemorySessionStore
from strata_server import event_hub
from strata_server.event_hub import EventHub
from strata_server.event_shapes import EventShapes

pytestmark = pytest.mark.anyio


async def with_hub(body: Callable[[EventHub], Awaitable[None]]) -> None:
    """Run `body` with a hub reading its own bus (no yield inside the task group)."""
    clock = FrozenClock(1_796_000_000_000)
    async with MemorySessionStore.open() as store, anyio.create_task_group() as group:
        hub = EventHub(b.Bus(), EventShapes(store, Ids(clock), clock))
        await group.start(hub.run)
        await body(hub)
        group.cancel_scope.cancel()


def text_part(text: str) -> TextPart:
    return TextPart(id="prt_1", session_id="ses_1", message_id="msg_1", text=text)


async def test_text_streams_as_the_part_then_its_deltas_and_idle_is_also_session_idle() -> None:
    got: list[dict[str, Any]] = []

    async def body(hub: EventHub) -> None:
        async with hub.subscribe() as events:
            hub.bus.part_updated(text_part(""))
            hub.bus.part_delta(text_part(""), "Hel")
            hub.bus.publish(b.SessionStatus("ses_1", "busy"))
            hub.bus.publish(b.SessionStatus("ses_1", "idle"))
            got.extend([await events.receive() for _ in range(5)])

    await with_hub(body)
    assert [e["type"] for e in got] == [
        "message.part.updated",
        "message.part.delta",
        "session.status",
        "session.status",
        "session.idle",
    ]
    assert got[0]["properties"]["part"]["type"] == "text"
    assert got[1]["properties"] == {
        "sessionID": "ses_1",
        "messageID": "msg_1",
        "partID": "prt_1",
        "field": "text",
        "delta": "Hel",
    }
    assert got[2]["properties"]["status"] == {"type": "busy"}
    assert all(e["id"].startswith("evt_") for e in got) and len({e["id"] for e in got}) == 5


async def test_every_client_gets_the_same_event_and_the_status_board_follows() -> None:
    async def body(hub: EventHub) -> None:
        async with hub.subscribe() as first, hub.subscribe() as second:
            hub.bus.publish(b.SessionStatus("ses_1", "busy"))
            one, two = await first.receive(), await second.receive()
            assert one == two
            assert hub.statuses.statuses == {"ses_1": {"type": "busy"}}
            hub.bus.publish(b.SessionStatus("ses_1", "idle"))
            await first.receive()
            assert hub.statuses.statuses == {}

    await with_hub(body)


async def test_a_client_that_leaves_is_forgotten_and_one_that_falls_behind_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(event_hub, "CLIENT_BUFFER", 2)

    async def body(hub: EventHub) -> None:
        async with hub.subscribe():
            pass
        assert hub._clients == []
        async with hub.subscribe() as slow:
            for _ in range(4):
                hub.bus.publish(b.SessionCompacted("ses_1"))
            await wait_all_tasks_blocked()  # the hub has handled all four while this client read nothing
            with anyio.fail_after(5):
                received = [event async for event in slow]
            assert hub._clients == []
        assert len(received) == 2  # what it had buffered, then its stream ends

    await with_hub(body)


async def test_the_hub_keeps_up_with_bursts_of_deltas_instead_of_falling_ever_further_behind() -> None:
    lags: list[int] = []

    async def body(hub: EventHub) -> None:
        async with hub.subscribe() as client:
            published = 0
            for _ in range(100):  # a burst of deltas per chunk read from the model, as the engine publishes them
                for _ in range(10):
                    hub.bus.part_delta(text_part(""), "x")
                    published += 1
                await anyio.lowlevel.checkpoint()
                lags.append(published - client.statistics().current_buffer_used)
            payloads = [await client.receive() for _ in range(published)]
        assert {p["type"] for p in payloads} == {"message.part.delta"}
        assert "".join(p["properties"]["delta"] for p in payloads) == "x" * 1000

    await with_hub(body)
    assert max(lags) <= 20  # one event per wake-up would leave it ~900 behind by the end
