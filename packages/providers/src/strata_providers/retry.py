"""Retrying a model call that failed before it said anything: bounded, abort-aware, visible.

A call is retried when its error is retryable (rate limited, overloaded, a server or transport failure) and
nothing has been streamed yet; once output has reached the caller a retry would duplicate it, so the error
is final. Each retry is announced with a `RetryScheduled` event before the wait, so a renderer can say so.
"""

from __future__ import annotations

import math
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

import anyio
from attrs import field, frozen

from strata_core.llm import ModelError, RetryScheduled, StreamEvent, StreamFailed, TransportError

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
    max_elapsed: float | None = 100.0
    """Seconds from the first attempt after which nothing is retried: no retry is scheduled past it, and a
    retry still waiting for its first event then is given up. A silent server fails in bounded time."""
    sleep: Callable[[float], Awaitable[None]] = field(default=anyio.sleep, eq=False, repr=False)
    """Waits between attempts; cancellable. Tests pass a recorder instead of waiting."""
    random: Callable[[], float] = field(default=random.random, eq=False, repr=False)

    def should_retry(self, attempt: int, error: ModelError) -> bool:
        """Whether the `attempt`-th attempt (1-based), which failed with `error`, deserves another."""
        if not error.retryable or attempt >= self.max_attempts:
            return False
        return error.retry_after is None or error.retry_after <= self.max_retry_after

    def within_budget(self, elapsed: float, delay: float) -> bool:
        """Whether a retry after `delay` more seconds still starts inside `max_elapsed`."""
        return self.max_elapsed is None or elapsed + delay < self.max_elapsed

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
    started = anyio.current_time()
    give_up_at = started + policy.max_elapsed if policy.max_elapsed is not None else math.inf
    attempt = 0
    while True:
        attempt += 1
        streamed = False
        try:
            # aclosing: leaving early (cancel, or the caller stopped reading) closes the attempt's response now.
            async with aclosing(open_attempt()) as events:
                # A retry must say something before the budget runs out; the first attempt has only its own
                # deadlines. The wait is bounded, never the `yield` (no cancel scope spans a yield).
                first = await _first_event(events, give_up_at if attempt > 1 else math.inf, attempt, policy)
                if first is None:
                    return
                streamed = True
                yield first
                async for event in events:
                    yield event
            return
        except ModelError as error:
            failure = error
        if streamed or not policy.should_retry(attempt, failure):
            yield StreamFailed(failure)
            return
        delay = policy.delay(attempt, failure)
        if not policy.within_budget(anyio.current_time() - started, delay):
            yield StreamFailed(_out_of_budget(failure, attempt, policy))
            return
        yield RetryScheduled(attempt=attempt, delay=delay, error=failure)
        await policy.sleep(delay)


async def _first_event(
    events: AsyncGenerator[StreamEvent, None], deadline: float, attempt: int, policy: RetryPolicy
) -> StreamEvent | None:
    with anyio.CancelScope(deadline=deadline):
        try:
            return await anext(events)
        except StopAsyncIteration:
            return None
    raise TransportError(
        f"no answer from the model within the {policy.max_elapsed:g} s retry budget ({attempt} attempts)"
    )


def _out_of_budget(error: ModelError, attempt: int, policy: RetryPolicy) -> ModelError:
    """The last error, saying that retries stopped because their time ran out."""
    return type(error)(
        f"{error.message} (gave up after {attempt} attempts: the {policy.max_elapsed:g} s retry budget is spent)",
        status=error.status,
        body=error.body,
    )
