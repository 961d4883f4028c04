"""Classifying provider failures: statuses, bodies, in-stream errors, overflow phrasing, retry-after."""

from __future__ import annotations

import email.utils

import pytest

from strata_core.llm import (
    AuthenticationError,
    BadResponseError,
    ContextOverflowError,
    ModelError,
    RateLimitedError,
    ServerError,
    TransportError,
)
from strata_providers.errors import error_for_status, error_from_payload, is_context_overflow, retry_after_seconds


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 213000 tokens > 200000 maximum",
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        "Your input exceeds the context window of this model.",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
        "Please reduce the length of the messages or completion.",
        "the request exceeds the available context size, try increasing it",
        "tokens to keep from the initial prompt is greater than the context length",
        "Your request exceeded model token limit: 262144 (requested: 300000)",
        "context_length_exceeded",
        "prompt too long; exceeded max context length by 1200 tokens",
        "400 (no body)",
    ],
)
def test_context_overflow_is_recognised_from_each_providers_wording(message: str) -> None:
    assert is_context_overflow(message)


@pytest.mark.parametrize("message", ["Rate limit reached for requests", "invalid x-api-key", "Overloaded", ""])
def test_other_errors_are_not_overflow(message: str) -> None:
    assert not is_context_overflow(message)


def test_retry_after_ms_is_preferred_and_converted_to_seconds() -> None:
    assert retry_after_seconds({"Retry-After": "5", "retry-after-ms": "1500"}) == 1.5


def test_retry_after_accepts_seconds_and_http_dates() -> None:
    assert retry_after_seconds({"retry-after": "12"}) == 12.0
    now = 1_767_225_600.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after_seconds({"retry-after": date}, now=now) == pytest.approx(30.0)
    assert retry_after_seconds({"retry-after": email.utils.formatdate(now - 30, usegmt=True)}, now=now) == 0.0


@pytest.mark.parametrize("value", ["soon", "-3", "nan", ""])
def test_an_unreadable_retry_after_is_ignored(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}) is None


def test_status_errors_carry_the_providers_message_and_status() -> None:
    error = error_for_status(429, {"retry-after": "2"}, '{"error": {"message": "Slow down", "type": "rate_limit"}}')
    assert isinstance(error, RateLimitedError) and error.retryable
    assert error.message == "429 Too Many Requests: Slow down"
    assert error.retry_after == 2.0 and error.status == 429


def test_an_html_error_page_is_summarised_not_dumped() -> None:
    error = error_for_status(502, {}, "<!DOCTYPE html><html><body>Bad gateway</body></html>")
    assert isinstance(error, ServerError)
    assert "HTML page" in error.message and "<html>" not in error.message


def test_a_long_plain_body_is_previewed() -> None:
    error = error_for_status(400, {}, "x" * 2000)
    assert isinstance(error, BadResponseError)
    assert "2000 bytes total" in error.message and len(error.message) < 700


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, AuthenticationError), (403, AuthenticationError), (408, TransportError), (409, ServerError),
     (413, ContextOverflowError), (422, BadResponseError), (529, RateLimitedError), (504, ServerError)],
)  # fmt: skip
def test_statuses_map_to_error_kinds(status: int, kind: type[ModelError]) -> None:
    assert type(error_for_status(status, {}, "")) is kind


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, RateLimitedError),
        ({"type": "rate_limit_error", "message": "slow"}, RateLimitedError),
        ({"type": "authentication_error", "message": "bad key"}, AuthenticationError),
        ({"type": "invalid_request_error", "message": "prompt is too long: 300000 tokens"}, ContextOverflowError),
        ({"type": "invalid_request_error", "message": "bad field"}, BadResponseError),
        ({"code": "context_length_exceeded", "message": "too much"}, ContextOverflowError),
        ({"type": "api_error", "message": "Internal error"}, ServerError),
        ("something broke", ServerError),
    ],
)
def test_in_stream_errors_are_classified(payload: object, kind: type[ModelError]) -> None:
    assert type(error_from_payload(payload)) is kind


def test_an_exhausted_quota_is_not_retryable() -> None:
    error = error_from_payload({"code": "insufficient_quota", "message": "You exceeded your current quota"})
    assert isinstance(error, RateLimitedError) and not error.retryable
    assert "Quota exceeded" in error.message
