"""A response body's stream events, read and decoded in a task of their own under one watchdog.

A provider frames each SSE event as an HTTP chunk of its own, so a stream of tokens is tens of thousands of
body reads, nearly all of them answered from bytes already received (one socket read holds hundreds of
chunks). Bounding each read with its own cancel scope cost more than decoding the event it returned (a timer
scheduled and cancelled on the event loop per read), and one scope cannot span the stream inside an async
generator, which yields between reads. So the body is read by a task (`BodyReader.run`) inside one cancel
scope, and a watchdog task cancels that scope when `AttemptTimer.body_deadline` passes: the chunk deadline
(from the last output; keepalives do not move it) or the total one. The watchdog sleeps until the deadline and
only looks again when it is reached, so a read costs nothing for its bound.

The reader hands the events of each body chunk to the stream's consumer as one batch, at most `_AHEAD`
batches ahead; while it waits for the consumer to catch up, the idle clock does not run (the model is not
the one being slow), and it starts again from when the consumer caught up.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import AsyncIterator
from typing import Protocol

import anyio
import httpx
from httpx_sse import ServerSentEvent

from strata_core.llm import ModelError, StreamEvent
from strata_providers.deadlines import AttemptTimer, Phase
from strata_providers.errors import bad_chunk
from strata_providers.sse_decoder import SseDecoder

_AHEAD = 256
"""Batches (one per body chunk with output) the reader may be ahead of the consumer: bounded memory."""
_DRAIN_GRACE = 0.25
"""Seconds the rest of a finished stream may take to arrive (see `_drain`)."""


class StreamDecoder(Protocol):
    """Turns one call's SSE events into stream events. A fresh decoder serves each attempt."""

    @property
    def finished(self) -> bool:
        """The provider said the stream is complete; nothing after this is read."""
        ...

    def feed(self, event: ServerSentEvent) -> list[StreamEvent]:
        """Events for one SSE event; raises `ModelError` for an error event or a malformed chunk."""
        ...

    def end_of_stream(self) -> list[StreamEvent]:
        """Called when the connection ends before `finished`: closing events, or a `TransportError`."""
        ...


def decode_event(decoder: StreamDecoder, sse: ServerSentEvent) -> list[StreamEvent]:
    """The decoder's events for one SSE event; anything it did not expect becomes a `BadResponseError`."""
    try:
        return decoder.feed(sse)
    except ModelError:
        raise
    except Exception as exc:
        # A chunk whose shape the decoder did not expect: report it as a bad response, never crash the caller.
        raise bad_chunk(f"{type(exc).__name__}: {exc}", sse.data) from exc


class BodyReader:
    """Reads one response's body into batches of stream events; `next_batch` hands them over in order."""

    def __init__(self, response: httpx.Response, decoder: StreamDecoder, timer: AttemptTimer) -> None:
        self._response = response
        self._decoder = decoder
        self._timer = timer
        self._sse = SseDecoder()
        self._batches: deque[list[StreamEvent]] = deque()
        self._ended = False
        self._failure: Exception | None = None
        self._expired: Phase | None = None
        self._consumer_waiting: anyio.Event | None = None
        self._reader_waiting: anyio.Event | None = None
        self._reading = anyio.CancelScope()
        self._done = anyio.Event()

    async def run(self) -> None:
        """The reader task: reads to the end of the stream, a failure, or `stop`; never raises but a cancel."""
        try:
            with self._reading:
                async with anyio.create_task_group() as watching:
                    watching.start_soon(self._watch)
                    await self._read()
                    watching.cancel_scope.cancel()
            if self._expired is not None and not self._decoder.finished:  # not a deadline passing in `_drain`
                self._failure = self._timer.expired(self._expired)
        finally:
            self._ended = True
            self._wake_consumer()
            self._done.set()

    async def next_batch(self) -> list[StreamEvent] | None:
        """The next batch of events, None at the end of the stream; raises what ended the reading early."""
        while not self._batches:
            if self._ended:
                if self._failure is not None:
                    raise self._failure
                return None
            self._consumer_waiting = anyio.Event()
            await self._consumer_waiting.wait()
        batch = self._batches.popleft()
        if self._reader_waiting is not None and len(self._batches) < _AHEAD // 2:
            # The idle clock starts again now, as the reader is released: stamped by the reader once it runs,
            # the watchdog could wake in between and take the consumer's delay for the model's silence.
            self._timer.output()
            self._reader_waiting.set()
            self._reader_waiting = None
        return batch

    async def stop(self) -> None:
        """Stops the reader (the consumer left) and waits until it no longer touches the response."""
        self._reading.cancel()
        with anyio.CancelScope(shield=True):
            await self._done.wait()

    async def _read(self) -> None:
        chunks = self._response.aiter_bytes()
        try:
            async for chunk in chunks:
                if await self._decode(chunk):
                    await _drain(chunks)
                    return
            await self._hand_over(self._decoder.end_of_stream())
        except Exception as exc:  # an HTTP failure or a decoding error: the consumer raises it, in order
            self._failure = exc

    async def _decode(self, chunk: bytes) -> bool:
        """Hands over the events of one body chunk; True once the decoder has seen the end of the stream."""
        batch: list[StreamEvent] = []
        try:
            for sse in self._sse.feed(chunk):
                batch += decode_event(self._decoder, sse)
                if self._decoder.finished:
                    return True
            return False
        finally:
            if batch:  # also what came before a failing event: delivered before its error
                self._timer.output()
                await self._hand_over(batch)

    async def _hand_over(self, batch: list[StreamEvent]) -> None:
        self._batches.append(batch)
        self._wake_consumer()
        if len(self._batches) >= _AHEAD:
            self._reader_waiting = waiting = anyio.Event()
            await waiting.wait()  # not the model's idle time: `next_batch` restarts the clock as it releases this

    def _wake_consumer(self) -> None:
        if self._consumer_waiting is not None:
            self._consumer_waiting.set()
            self._consumer_waiting = None

    async def _watch(self) -> None:
        """Cancels the reading once the body's deadline passes (looked at again only when it is reached)."""
        while True:
            deadline, phase = self._timer.body_deadline()
            if deadline == math.inf:
                await anyio.sleep_forever()
            if anyio.current_time() < deadline:
                await anyio.sleep_until(deadline)
            elif self._reader_waiting is not None:
                await anyio.sleep(self._timer.deadlines.chunk or 1.0)  # waiting on the consumer, not the model
            else:
                self._expired = phase
                self._reading.cancel()
                return


async def _drain(rest: AsyncIterator[bytes]) -> None:
    """Read what a finished stream still sends (its end: the last chunk of the body) and drop it.

    A response closed before the end of its body takes its connection with it, so every step would connect
    again (and shake hands again over TLS); read to the end, the connection returns to the client's pool for
    the next call. OpenCode's client reads a stream to its end too. A server that keeps the body open past
    the end of the answer gets `_DRAIN_GRACE`, then the connection is closed as before; one that breaks the
    body off (closes without its last chunk) costs the connection only, never the complete answer.
    """
    with anyio.move_on_after(_DRAIN_GRACE):
        try:
            async for _ in rest:
                pass
        except httpx.HTTPError:
            pass
