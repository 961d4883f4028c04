"""A step's stream as parts: text and reasoning opened, grown and closed by the stream's keys, tool calls given
their parts (each call its own id), and what the stream left open settled when the step ends.

Streamed text and reasoning grow by appending, are announced delta by delta and stored only now and then
(`streamed_text.py` has the rule; the final text is stored at its end). A tool call is announced pending at
its start and stored once complete (running), as OpenCode shows it; the processor starts the tool.

A model (or a local server) can send two calls with one id. Stored as they come, the second call would take
over the first one's part, the first call's result would have no part to land on, and the next request would
carry one call where the model made two. So the second and later calls with an id already used in the step
get a fresh one (`<id>_2`, `<id>_3`, ...; `CallIds`), which its start and its completion share. The calls of
one id complete in the order they started on both wires, which is how each call finds its id.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import attrs
from attrs import define, field

from strata_core import llm
from strata_core.engine.part_writer import PartWriter
from strata_core.engine.streamed_text import StreamedText
from strata_core.engine.tool_calls import interrupted
from strata_core.message import (
    PartTime,
    ReasoningPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStatePending,
    ToolStateRunning,
)


@define
class CallIds:
    """Gives each call of one step its own id: the model's, or the model's with `_2`, `_3`, ... once used."""

    _used: set[str] = field(factory=set)
    _started: dict[str, deque[str]] = field(factory=dict)
    """The model's id -> ids of its calls started and not yet complete, oldest first."""

    def start(self, model_id: str) -> str:
        """The id of a call whose arguments start streaming."""
        unique = self._fresh(model_id)
        self._started.setdefault(model_id, deque()).append(unique)
        return unique

    def complete(self, model_id: str) -> str:
        """The id of a complete call: its start's (the oldest still open under `model_id`), or a fresh one."""
        waiting = self._started.get(model_id)
        if waiting:
            return waiting.popleft()
        return self._fresh(model_id)  # a call sent whole, without a start event

    def _fresh(self, model_id: str) -> str:
        unique, n = model_id, 1
        while unique in self._used:
            n += 1
            unique = f"{model_id}_{n}"
        self._used.add(unique)
        return unique


@define
class StreamParts:
    """The parts one step's stream has opened, by the stream's keys, and how each grows and ends."""

    write: PartWriter
    texts: dict[str, StreamedText] = field(factory=dict)
    reasoning: dict[str, StreamedText] = field(factory=dict)
    tools: dict[str, ToolPart] = field(factory=dict)
    """The step's tool parts by (unique) call id."""
    call_ids: CallIds = field(factory=CallIds)

    async def text(self, event: llm.TextStart | llm.TextDelta | llm.TextEnd) -> None:
        streamed = self.texts.get(event.id)
        now = self.write.now()
        if streamed is None:
            part = TextPart(**self.write.new_part_ids(), time=PartTime(now))
            streamed = await self._open(self.texts, event.id, part, now)
        if isinstance(event, llm.TextDelta):
            await self._grow(streamed, event.text, now)
        elif isinstance(event, llm.TextEnd):
            del self.texts[event.id]
            await self._end(streamed, now, event.provider_metadata)

    async def reason(self, event: llm.ReasoningStart | llm.ReasoningDelta | llm.ReasoningEnd) -> None:
        streamed = self.reasoning.get(event.id)
        now = self.write.now()
        if isinstance(event, llm.ReasoningStart):
            part = ReasoningPart(**self.write.new_part_ids(), time=PartTime(now))
            await self._open(self.reasoning, event.id, part, now)
        elif streamed is None:
            return  # OpenCode drops reasoning that never started
        elif isinstance(event, llm.ReasoningDelta):
            await self._grow(streamed, event.text, now)
        else:
            del self.reasoning[event.id]
            await self._end(streamed, now, event.provider_metadata)

    def tool_input_start(self, event: llm.ToolInputStart) -> None:
        # Announced now, stored once the call is complete (or by `close`, as aborted, if the stream ends
        # first): storing the short-lived pending state too would cost a write per call for nothing.
        call_id = self.call_ids.start(event.call_id)
        part = ToolPart(**self.write.new_part_ids(), call_id=call_id, tool=event.tool_name, state=ToolStatePending())
        self.tools[call_id] = part
        self.write.announce(part)

    def unique_call(self, call: llm.ToolCall) -> llm.ToolCall:
        """The complete call under its own id in this step."""
        return attrs.evolve(call, call_id=self.call_ids.complete(call.call_id))

    def running_part(self, call: llm.ToolCall, tool: str) -> ToolPart:
        """The part of a complete call (`unique_call`'s), now running `tool` (its name as repaired): the part
        its start opened, or a new one."""
        part = self.tools.get(call.call_id)
        if part is None:
            part = ToolPart(**self.write.new_part_ids(), call_id=call.call_id, tool=tool, state=ToolStatePending())
            self.tools[call.call_id] = part
        part.tool = tool
        if call.provider_metadata:
            part.metadata = {**(part.metadata or {}), "providerMetadata": dict(call.provider_metadata)}
        part.state = ToolStateRunning(input=dict(call.input or {}), time=PartTime(self.write.now()))
        return part

    async def close(self, end: int, ended_on_abort: Mapping[str, ToolStateCompleted]) -> None:
        """Store what the stream left open: texts and reasoning as they are, tools still pending or running as
        interrupted, or as their tool ended them when it answered the cancellation (`ended_on_abort`)."""
        for streamed in [*self.texts.values(), *self.reasoning.values()]:
            await self._end(streamed, end, None)
        for part in self.tools.values():
            if isinstance(part.state, ToolStatePending | ToolStateRunning):
                part.state = ended_on_abort.get(part.call_id) or interrupted(part.state, end)
                await self.write.part(part)

    async def _open(
        self, parts: dict[str, StreamedText], key: str, part: TextPart | ReasoningPart, now: int
    ) -> StreamedText:
        streamed = parts[key] = StreamedText(part, stored_at=now)
        await self.write.part(part)
        return streamed

    async def _grow(self, streamed: StreamedText, delta: str, now: int) -> None:
        streamed.append(delta)
        self.write.delta(streamed.part, delta)
        if streamed.due(now):
            await self.write.save(streamed.stored(now))

    async def _end(self, streamed: StreamedText, now: int, metadata: Mapping[str, Any] | None) -> None:
        part = streamed.settled()
        part.time = PartTime(part.time.start if part.time else now, now)
        if metadata:
            part.metadata = dict(metadata)
        await self.write.part(part)
