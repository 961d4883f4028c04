"""A streamed part costs its length, not its length once per delta: each delta on the bus carries only the
appended piece, and a growing part is stored now and then (a prefix of its text each time) and exactly at
its end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from attrs import define, field
from engine_fakes import IDS, assistant, plain_executor, stored_message, tool_context

from strata_core import llm
from strata_core.bus import Bus, BusEvent, PartDelta, PartUpdated
from strata_core.clock import FrozenClock
from strata_core.engine.processor import StepInput, StepProcessor
from strata_core.message import MessageWithParts, Part, ReasoningPart, TextPart
from strata_core.permission.flow import PermissionFlow
from strata_core.session.memory_store import MemorySessionStore

pytestmark = pytest.mark.anyio

DELTAS = 2_000
PIECE = "0123456789"
STREAMED = PIECE * DELTAS


class RecordingStore(MemorySessionStore):
    """The in-memory store, recording the text of every write of a text or reasoning part."""

    def __init__(self) -> None:
        super().__init__()
        self.text_writes: list[str] = []

    async def put_part(self, part: Part) -> None:
        if isinstance(part, TextPart | ReasoningPart):
            self.text_writes.append(part.text)
        await super().put_part(part)


@define
class SlowStream:
    """A model streaming one part a delta at a time, the clock moving on `gap_ms` per delta; like a network
    stream, it lets other tasks run between deltas (the store's writer among them)."""

    kind: type[TextPart] | type[ReasoningPart]
    clock: FrozenClock
    gap_ms: int
    info: llm.ModelInfo = field(factory=lambda: llm.ModelInfo("fake", "fake-model"))

    @asynccontextmanager
    async def stream(self, request: llm.ModelRequest) -> AsyncIterator[AsyncIterator[llm.StreamEvent]]:
        yield self._events()

    async def _events(self) -> AsyncIterator[llm.StreamEvent]:
        text = self.kind is TextPart
        yield llm.TextStart("p") if text else llm.ReasoningStart("p")
        for _ in range(DELTAS):
            self.clock.advance(self.gap_ms)
            await anyio.lowlevel.checkpoint()
            yield llm.TextDelta("p", PIECE) if text else llm.ReasoningDelta("p", PIECE)
        yield llm.TextEnd("p") if text else llm.ReasoningEnd("p")
        yield llm.Finish("stop", llm.Usage(input_tokens=10, output_tokens=5))


async def stream_one_part(
    kind: type[TextPart] | type[ReasoningPart], gap_ms: int
) -> tuple[RecordingStore, list[BusEvent], MessageWithParts]:
    clock = FrozenClock(1_796_000_000_000)
    bus = Bus()
    processor = StepProcessor(RecordingStore(), bus, PermissionFlow(IDS), plain_executor, clock, IDS)
    store = processor.store
    assert isinstance(store, RecordingStore)
    message = assistant()
    await store.put_message(message)
    step = StepInput(message, SlowStream(kind, clock, gap_ms), llm.ModelRequest(("sys",), ()), {}, tool_context())
    async with bus.subscribe() as events:
        await processor.process(step)
        published = Bus.waiting(events)
    stored = await stored_message(store, "ses_1", message.id)
    assert stored is not None
    return store, published, stored


def streamed_part(stored: MessageWithParts) -> TextPart | ReasoningPart:
    (part,) = [p for p in stored.parts if isinstance(p, TextPart | ReasoningPart)]
    return part


@pytest.mark.parametrize("kind", [TextPart, ReasoningPart])
async def test_a_slowly_streamed_part_is_stored_now_and_then_as_a_prefix_and_exactly_at_its_end(
    kind: type[TextPart] | type[ReasoningPart],
) -> None:
    # A delta every 250 ms: past the least interval between stores every time, so only the growth rule
    # keeps the part from being rewritten whole once per delta.
    store, _, stored = await stream_one_part(kind, gap_ms=250)
    assert streamed_part(stored).text == STREAMED
    writes = store.text_writes
    assert writes[-1] == STREAMED
    assert all(STREAMED.startswith(text) for text in writes)
    assert 2 < len(writes) <= DELTAS // 20  # stored while it streams, yet far less often than per delta
    assert sum(map(len, writes)) <= 10 * len(STREAMED)


@pytest.mark.parametrize("kind", [TextPart, ReasoningPart])
async def test_each_delta_on_the_bus_carries_only_its_piece_and_the_part_is_announced_whole_twice(
    kind: type[TextPart] | type[ReasoningPart],
) -> None:
    _, published, stored = await stream_one_part(kind, gap_ms=250)
    part_id = streamed_part(stored).id
    deltas = [e for e in published if isinstance(e, PartDelta) and e.part_id == part_id]
    wholes = [e.part for e in published if isinstance(e, PartUpdated) and e.part.id == part_id]
    assert [d.delta for d in deltas] == [PIECE] * DELTAS
    assert {d.field for d in deltas} == {"text"}
    assert [p.text for p in wholes if isinstance(p, TextPart | ReasoningPart)] == ["", STREAMED]
