"""Retrying a model call that failed before it said anything: bounded, abort-aware, visible.

A call is retried when its error is retryable (rate limited, overloaded, a server or transport failure) and
nothing has been streamed yet; once output has reached the caller a retry would duplicate it, so the error
is final. Each retry is announced with a `RetryScheduled` event before the wait, so a renderer can say so.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

import anyio
from attrs import field, frozen

from strata_core.llm import ModelError, RetryScheduled, StreamEvent, StreamFailed

OpenAttempt = Callable[[], AsyncGenerator[StreamEvent, None]]
"""Starts one attempt: an async generator of events that raises `ModelError` when the attempt fails."""


@frozen
class RetryPolicy:
    """How often and how patiently to retry. Defaults follow OpenCode: 2 s, 4 s, 8 s... capped at 30 s."""

    max_attempts: int = 4
    """Attempts in total, the first included; 1 disables retries."""
    initial_delay: float = 2.0
    max_delay: float = 30.0
    """Cap for the computed backoff; a provider's own `retry-after` is honoured as given."""
    jitter: float = 0.1
    """Each computed delay is shortened by up to this fraction, so clients do not retry in lockstep."""
    max_retry_after: float = 600.0
    """A provider asking for a longer wait than this gets no retry: the error is reported instead."""
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep, eq=False, repr=False)
    """Waits between attempts; cancellable. Tests pass a recorder instead of waiting."""
    random: Callable[[], float] = field(default=random.random, eq=False, repr=False)

    def should_retry(self, attempt: int, error: ModelError) -> bool:
        """Whether the `attempt`-th attempt (1-based), which failed with `error`, deserves another."""
        if not error.retryable or attempt >= self.max_attempts:
            return False
        return error.retry_after is None or error.retry_after <= self.max_retry_after

    def delay(self, attempt: int, error: ModelError) -> float:
        """Seconds to wait after the `attempt`-th failure: the provider's word, else jittered backoff."""
        if error.retry_after is not None:
            return error.retry_after
        backoff: float = min(self.initial_delay * 2.0 ** (attempt - 1), self.max_delay)
        return backoff * (1.0 - self.jitter * self.random())


NO_RETRIES = RetryPolicy(max_attempts=1)


async def stream_with_retries(open_attempt: OpenAttempt, policy: RetryPolicy) -> AsyncGenerator[StreamEvent, None]:
    """Events of the first attempt that succeeds, with `RetryScheduled` between attempts.

    Ends with the attempt's own last event, or with one `StreamFailed` carrying the final error.
    """
    attempt = 0
    while True:
        attempt += 1
        streamed = False
        try:
            # aclosing: leaving early (cancel, or the caller stopped reading) closes the attempt's response now.
            async with aclosing(open_attempt()) as events:
                async for event in events:
                    streamed = True
                    yield event
            return
        except ModelError as error:
            failure = error
        if streamed or not policy.should_retry(attempt, failure):
            yield StreamFailed(failure)
            return
        delay = policy.delay(attempt, failure)
        yield RetryScheduled(attempt=attempt, delay=delay, error=failure)
        await policy.sleep(delay)
