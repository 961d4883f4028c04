"""Streamed text beyond `strata run`'s renderer: a remote `/event` stream's deltas read back as the core's
deltas, the interactive view growing its preview from deltas and printing the whole answer once, and the
turn's reader taking every waiting event at each wake-up so it keeps up with a fast stream."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest
from rich.console import Console
from session_records import assistant_message

from strata_cli.interactive_view import TurnView
from strata_cli.remote_events import RemoteEvents
from strata_cli.turn import drive_turn
from strata_core import bus as b
from strata_core import message as m

SESSION = "ses_1"


def _assistant() -> m.AssistantMessage:
    return assistant_message(SESSION, "msg_1", "msg_2")


def test_a_remote_delta_becomes_a_delta_event_carrying_only_its_piece() -> None:
    remote = RemoteEvents()
    ids = {"sessionID": SESSION, "messageID": "msg_2", "partID": "prt_1"}
    event = remote.bus_event({"type": "message.part.delta", "properties": {**ids, "field": "text", "delta": "Hel"}})
    assert event == b.PartDelta(SESSION, "msg_2", "prt_1", "text", "Hel")
    other_field = {"type": "message.part.delta", "properties": {**ids, "field": "state", "delta": "x"}}
    assert remote.bus_event(other_field) is None


async def _unused_ask(request: b.PermissionRequest) -> b.PermissionReply:
    raise AssertionError("no question is asked here")


@pytest.mark.anyio
async def test_the_interactive_view_grows_its_preview_from_deltas_and_prints_the_answer_once() -> None:
    out = io.StringIO()
    view = TurnView(Console(file=out, width=80), Path("/w"), SESSION, _unused_ask, lambda request_id, reply: None)
    await view.handle(b.MessageUpdated(_assistant()))
    start = m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", time=m.PartTime(start=1))
    await view.handle(b.PartUpdated(start))
    for piece in ("Hello", ", ", "world."):
        await view.handle(b.PartDelta(SESSION, "msg_2", "prt_1", "text", piece))
    view.flush()  # something else needs the screen: the preview gives way to the text so far
    done = m.TextPart(id="prt_1", session_id=SESSION, message_id="msg_2", text="Hello, world.", time=m.PartTime(1, 2))
    await view.handle(b.PartUpdated(done))
    assert out.getvalue().count("Hello, world.") == 1


@pytest.mark.anyio
async def test_a_turn_reader_keeps_up_with_bursts_of_events_instead_of_falling_ever_further_behind() -> None:
    bus = b.Bus()
    handled: list[b.BusEvent] = []
    lags: list[int] = []

    async def start() -> m.MessageWithParts:
        published = 0
        for _ in range(100):  # a burst of deltas per chunk read from the model, as the engine publishes them
            for _ in range(10):
                bus.publish(b.PartDelta(SESSION, "msg_2", "prt_1", "text", "x"))
                published += 1
            await anyio.lowlevel.checkpoint()
            lags.append(published - len(handled))
        bus.publish(b.SessionStatus(SESSION, "idle"))
        return m.MessageWithParts(_assistant(), [])

    async def handle(event: b.BusEvent) -> None:
        handled.append(event)

    async def cancel() -> None:
        pass

    outcome = await drive_turn(bus, SESSION, start, handle, cancel)
    assert not outcome.interrupted and len(handled) == 1001
    assert max(lags) <= 20  # one event per wake-up would leave it ~900 behind by the end
