"""How long one model call may take: until its headers, between two pieces of output, and in total.

OpenCode's provider options name them (`provider.<id>.options`, milliseconds, `false` for none):
`headerTimeout` (until the response headers), `chunkTimeout` (between two chunks of the stream) and
`timeout` (the whole request). Strata reads the same keys with shorter defaults: a minute without
output is a stuck call, not a thinking model, and a keepalive that carries no output (`: ping` comments,
Anthropic `ping` events) does not reset the clock. The header wait is bounded by an anyio deadline around
it; a stream's body is read in a task of its own (`stream_reader.py`), which one watchdog per stream bounds
with `body_deadline`, instead of a cancel scope around each of the thousands of reads.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable
from typing import Literal, TypeVar

import anyio
from attrs import define, frozen

from strata_core.config import ProviderOptions
from strata_core.llm import TransportError

T = TypeVar("T")

DEFAULT_HEADER_TIMEOUT = 60.0
DEFAULT_CHUNK_TIMEOUT = 60.0
"""Seconds without output before a call fails (OpenCode waits 300 s)."""

Phase = Literal["header", "chunk", "total"]
_OPTION: dict[Phase, str] = {"header": "headerTimeout", "chunk": "chunkTimeout", "total": "timeout"}


@frozen
class Deadlines:
    """Seconds each wait of one call may last; None waits without limit."""

    header: float | None = DEFAULT_HEADER_TIMEOUT
    chunk: float | None = DEFAULT_CHUNK_TIMEOUT
    total: float | None = None

    @classmethod
    def from_options(cls, options: ProviderOptions) -> Deadlines:
        """A provider's `options.headerTimeout`, `chunkTimeout` and `timeout` (ms, or false for none)."""
        return cls(
            header=_seconds(options.header_timeout, DEFAULT_HEADER_TIMEOUT),
            chunk=_seconds(options.chunk_timeout, DEFAULT_CHUNK_TIMEOUT),
            total=_seconds(options.timeout, None),
        )


@define
class AttemptTimer:
    """The deadlines of one attempt, started when the request is sent."""

    deadlines: Deadlines
    url: str
    started: float
    last_output: float
    clock_offset: float = 0.0
    """The event loop's clock minus `time.monotonic()`, for `output`."""

    @classmethod
    def start(cls, deadlines: Deadlines, url: str) -> AttemptTimer:
        now = anyio.current_time()
        return cls(deadlines, url, now, now, now - time.monotonic())

    def output(self) -> None:
        """The stream produced something: the chunk timer starts again.

        Called for every body chunk with output: `anyio.current_time()` looks the event loop up on every call
        (~0.5 us, a tenth of decoding an event), so this reads the monotonic clock the loop's is offset from
        (asyncio's is `time.monotonic()` itself)."""
        self.last_output = time.monotonic() + self.clock_offset

    async def headers(self, waiting: Awaitable[T]) -> T:
        return await self._bounded(waiting, "header", self.started)

    async def chunk(self, waiting: Awaitable[T]) -> T:
        return await self._bounded(waiting, "chunk", self.last_output)

    def body_deadline(self) -> tuple[float, Phase]:
        """When reading the body fails, and which deadline that is: the chunk deadline from the last output,
        or the total one, whichever comes first."""
        return self._deadline("chunk", self.last_output)

    async def _bounded(self, waiting: Awaitable[T], phase: Phase, since: float) -> T:
        deadline, expired = self._deadline(phase, since)
        with anyio.CancelScope(deadline=deadline):
            return await waiting
        raise self.expired(expired)

    def _deadline(self, phase: Phase, since: float) -> tuple[float, Phase]:
        limit = getattr(self.deadlines, phase)
        own = since + limit if limit is not None else math.inf
        total = self.started + self.deadlines.total if self.deadlines.total is not None else math.inf
        return (total, "total") if total <= own else (own, phase)

    def expired(self, phase: Phase) -> TransportError:
        """The error of a call that ran past its `phase` deadline."""
        seconds = getattr(self.deadlines, phase)
        option = f"provider option {_OPTION[phase]}, in milliseconds"
        if phase == "header":
            return TransportError(f"no response from {self.url} within {seconds:g} s ({option})")
        if phase == "chunk":
            return TransportError(f"no output from the model for {seconds:g} s ({option}) from {self.url}")
        return TransportError(f"the request to {self.url} ran past its {seconds:g} s deadline ({option})")


def _seconds(value: int | Literal[False] | None, default: float | None) -> float | None:
    if value is None:
        return default
    return None if value is False else value / 1000
