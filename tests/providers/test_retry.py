"""The retry policy on its own: which errors, how long, how many times."""

from __future__ import annotations

from strata_core.llm import AuthenticationError, RateLimitedError, ServerError, TransportError
from strata_providers.retry import NO_RETRIES, RetryPolicy


def test_backoff_doubles_from_two_seconds_and_is_capped_at_thirty() -> None:
    policy = RetryPolicy(random=lambda: 0.0, max_attempts=10)
    error = ServerError("boom")
    assert [policy.delay(n, error) for n in range(1, 7)] == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


def test_jitter_only_ever_shortens_the_wait() -> None:
    policy = RetryPolicy(random=lambda: 1.0, jitter=0.1)
    assert policy.delay(1, ServerError("boom")) == 1.8


def test_the_providers_retry_after_is_used_as_given_even_beyond_the_cap() -> None:
    policy = RetryPolicy()
    assert policy.delay(1, RateLimitedError("slow", retry_after=45.0)) == 45.0


def test_only_retryable_errors_within_the_attempt_budget_are_retried() -> None:
    policy = RetryPolicy(max_attempts=3)
    assert policy.should_retry(1, TransportError("reset"))
    assert policy.should_retry(2, RateLimitedError("slow"))
    assert not policy.should_retry(3, RateLimitedError("slow"))
    assert not policy.should_retry(1, AuthenticationError("no"))
    assert not NO_RETRIES.should_retry(1, ServerError("boom"))


def test_a_wait_longer_than_the_limit_is_not_retried() -> None:
    policy = RetryPolicy(max_retry_after=60.0)
    assert policy.should_retry(1, RateLimitedError("slow", retry_after=60.0))
    assert not policy.should_retry(1, RateLimitedError("slow", retry_after=61.0))
