"""The event relay between servers sharing a PostgreSQL store: events arrive in order at the other server, a part
too big for a notification arrives whole (read from the store), and a big delta arrives cut into pieces that
add up to it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from session_records import text_part

from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.session import PostgresSessionStore, part_data
from strata_server.event_relay import EventRelay
from strata_server.event_shapes import EventShapes

pytestmark = pytest.mark.anyio


async def test_events_big_and_small_reach_the_other_server_whole_and_in_order(postgres_url: str) -> None:
    clock = SystemClock()
    async with PostgresSessionStore.open(postgres_url) as here, PostgresSessionStore.open(postgres_url) as there:
        big = text_part("ses_1", "msg_1", "x" * 50_000)
        await here.put_part(big)
        shapes_here, shapes_there = EventShapes(here, Ids(clock), clock), EventShapes(there, Ids(clock), clock)
        sender = EventRelay(here, shapes_here, here.event_channel())
        receiver = EventRelay(there, shapes_there, there.event_channel())
        received: list[dict[str, Any]] = []
        all_arrived = anyio.Event()

        async def heard(message: dict[str, Any]) -> None:
            payload = await receiver.incoming(message)
            if payload is not None:
                received.append(payload)
            if payload is not None and payload["properties"].get("last"):
                all_arrived.set()

        delta = {
            "sessionID": "ses_1",
            "messageID": "msg_1",
            "partID": big.id,
            "field": "text",
            "delta": "\x01" * 6000 + "é" * 3000,
        }
        sent = [
            shapes_here.event("session.status", {"sessionID": "ses_1", "status": {"type": "busy"}}),
            shapes_here.event("message.part.delta", delta),
            shapes_here.event("message.part.updated", {"sessionID": "ses_1", "part": part_data(big), "time": 1}),
            shapes_here.event("session.idle", {"sessionID": "ses_1", "last": True}),
        ]
        async with anyio.create_task_group() as group:
            await group.start(sender.channel.run, _ignore)
            await group.start(receiver.channel.run, heard)
            for payload in sent:
                sender.outgoing(payload)
            with anyio.fail_after(30):
                await all_arrived.wait()
            group.cancel_scope.cancel()

    assert sender.channel.dropped == 0
    kinds = [p["type"] for p in received]
    pieces = kinds.count("message.part.delta")
    assert kinds == ["session.status", *["message.part.delta"] * pieces, "message.part.updated", "session.idle"]
    assert pieces > 1
    assert (
        "".join(p["properties"]["delta"] for p in received if p["type"] == "message.part.delta")
        == "\x01" * 6000 + "é" * 3000
    )
    (updated,) = [p for p in received if p["type"] == "message.part.updated"]
    assert updated["properties"]["part"] == part_data(big) and updated["properties"]["time"] == 1


async def _ignore(message: dict[str, Any]) -> None:
    raise AssertionError(f"a server heard its own event: {message}")
