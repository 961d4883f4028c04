"""The event bus: fan-out, order, snapshots, and publishers that never block."""

from __future__ import annotations

import anyio
import pytest

from strata_core.bus import Bus, MessageUpdated, PartUpdated, SessionStatus, TitleUpdated
from strata_core.message import (
    AssistantMessage,
    MessageTime,
    PartTime,
    PathInfo,
    TextPart,
    ToolPart,
    ToolStateRunning,
)


@pytest.mark.anyio
async def test_every_subscriber_gets_every_event_in_order() -> None:
    bus = Bus()
    async with bus.subscribe() as first, bus.subscribe() as second:
        bus.publish(SessionStatus("ses_1", "busy"))
        bus.publish(TitleUpdated("ses_1", "A title"))
        bus.publish(SessionStatus("ses_1", "idle"))
        for stream in (first, second):
            received = [stream.receive_nowait() for _ in range(3)]
            assert [type(e).__name__ for e in received] == ["SessionStatus", "TitleUpdated", "SessionStatus"]


@pytest.mark.anyio
async def test_publishing_never_blocks_on_a_subscriber_that_is_not_reading() -> None:
    bus = Bus()
    async with bus.subscribe() as stream:
        # publish() is synchronous: returning at all proves it did not wait for the reader.
        for index in range(10_000):
            bus.publish(SessionStatus(f"ses_{index}", "busy"))
        assert stream.statistics().current_buffer_used == 10_000


@pytest.mark.anyio
async def test_events_published_before_subscribing_or_after_leaving_are_not_delivered() -> None:
    bus = Bus()
    bus.publish(SessionStatus("ses_1", "busy"))
    async with bus.subscribe() as stream:
        bus.publish(SessionStatus("ses_1", "idle"))
        assert stream.receive_nowait() == SessionStatus("ses_1", "idle")
        with pytest.raises(anyio.WouldBlock):
            stream.receive_nowait()
    bus.publish(SessionStatus("ses_1", "busy"))  # nobody left: must not raise


@pytest.mark.anyio
async def test_a_subscriber_that_closed_its_stream_is_dropped_without_disturbing_others() -> None:
    bus = Bus()
    async with bus.subscribe() as closed, bus.subscribe() as reading:
        await closed.aclose()
        bus.publish(SessionStatus("ses_1", "busy"))
        assert reading.receive_nowait().type == "session.status"


@pytest.mark.anyio
async def test_part_updates_carry_a_snapshot_not_the_live_part() -> None:
    bus = Bus()
    part = TextPart(id="prt_1", session_id="ses_1", message_id="msg_1", text="Hel")
    async with bus.subscribe() as stream:
        bus.part_updated(part)
        part.text += "lo"
        event = stream.receive_nowait()
        assert isinstance(event, PartUpdated)
        assert isinstance(event.part, TextPart)
        assert event.part.text == "Hel"


@pytest.mark.anyio
async def test_a_running_tools_progress_after_publishing_does_not_change_the_event() -> None:
    bus = Bus()
    running = ToolStateRunning(input={}, time=PartTime(1), metadata={"output": "a"})
    part = ToolPart(id="prt_1", session_id="ses_1", message_id="msg_1", call_id="c", tool="bash", state=running)
    async with bus.subscribe() as stream:
        bus.part_updated(part)
        running.metadata = {"output": "ab"}
        event = stream.receive_nowait()
    assert isinstance(event, PartUpdated) and isinstance(event.part, ToolPart)
    assert isinstance(event.part.state, ToolStateRunning) and event.part.state.metadata == {"output": "a"}


@pytest.mark.anyio
async def test_a_message_completed_after_publishing_does_not_change_the_event() -> None:
    bus = Bus()
    message = AssistantMessage(
        id="msg_2", session_id="ses_1", parent_id="msg_1", time=MessageTime(1), model_id="m", provider_id="p",
        mode="build", agent="build", path=PathInfo("/w", "/w"),
    )  # fmt: skip
    async with bus.subscribe() as stream:
        bus.message_updated(message)  # the step's tokens, while the message is still open
        message.time.completed = 2  # as the step's cleanup completes it
        event = stream.receive_nowait()
    assert isinstance(event, MessageUpdated) and event.message.time.completed is None
