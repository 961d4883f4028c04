"""Tool-call ids made unique within one step, so two calls the model gave the same id both run.

A model (or a local server) can send two calls with one id. Stored as they come, the second call would take
over the first one's part, the first call's result would have no part to land on, and the next request would
carry one call where the model made two. Here the second and later calls with an id already used in the step
get a fresh one (`<id>_2`, `<id>_3`, ...); the events of a call (start, deltas, end, the call) follow it. The
calls of one id complete in the order they started on both wires, which is how each call finds its id.
"""

from __future__ import annotations

from collections import deque

import attrs
from attrs import define, field

from strata_core import llm

CallEvent = llm.ToolInputStart | llm.ToolInputDelta | llm.ToolInputEnd | llm.ToolCall


@define
class CallIds:
    """Rewrites the call ids of one step's events so that each call has its own."""

    _used: set[str] = field(factory=set)
    _streaming: dict[str, str] = field(factory=dict)
    """The model's id -> the id of its call now streaming arguments."""
    _started: dict[str, deque[str]] = field(factory=dict)
    """The model's id -> ids of its calls started and not yet complete, oldest first."""

    def rewrite(self, event: llm.StreamEvent) -> llm.StreamEvent:
        if isinstance(event, llm.ToolInputStart):
            return attrs.evolve(event, call_id=self._start(event.call_id))
        if isinstance(event, llm.ToolInputDelta | llm.ToolInputEnd):
            return attrs.evolve(event, call_id=self._streaming.get(event.call_id, event.call_id))
        if isinstance(event, llm.ToolCall):
            return attrs.evolve(event, call_id=self._complete(event.call_id))
        return event

    def _start(self, model_id: str) -> str:
        unique = self._fresh(model_id)
        self._streaming[model_id] = unique
        self._started.setdefault(model_id, deque()).append(unique)
        return unique

    def _complete(self, model_id: str) -> str:
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
