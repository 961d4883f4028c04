"""Turning what a provider says went wrong into Strata's `ModelError` tree.

Providers report failures three ways: an HTTP status with a JSON (or HTML, or empty) body, an error event
in the middle of a stream, and phrases like "prompt is too long" that only the text gives away. Everything
here is pure: the wires hand in status, headers and text, and get back one classified error.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from strata_core import json_text
from strata_core.llm import (
    AuthenticationError,
    BadResponseError,
    ContextOverflowError,
    ModelError,
    RateLimitedError,
    ServerError,
    TransportError,
)

# How providers phrase "the request does not fit the context window"; the same list OpenCode keeps in
# provider/error.ts (itself adapted from pi-mono), so compaction triggers on the same answers.
OVERFLOW_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"prompt is too long",  # Anthropic
        r"input is too long for requested model",  # Amazon Bedrock
        r"exceeds the context window",  # OpenAI
        r"input token count.*exceeds the maximum",  # Google Gemini
        r"maximum prompt length is \d+",  # xAI
        r"reduce the length of the messages",  # Groq
        r"maximum context length is \d+ tokens",  # OpenRouter, DeepSeek, vLLM
        r"maximum context length",  # OpenAI chat completions ("This model's maximum context length is ...")
        r"exceeds the limit of \d+",  # GitHub Copilot
        r"exceeds the available context size",  # llama.cpp server
        r"greater than the context length",  # LM Studio
        r"context window exceeds limit",  # MiniMax
        r"exceeded model token limit",  # Kimi, Moonshot
        r"context[_ ]length[_ ]exceeded",  # generic, and OpenAI's error code
        r"request entity too large",  # HTTP 413 text
        r"context length is only \d+ tokens",  # vLLM
        r"input length.*exceeds.*context length",  # vLLM
        r"prompt too long; exceeded (?:max )?context length",  # Ollama
        r"too large for model with \d+ maximum context length",  # Mistral
        r"model_context_window_exceeded",  # z.ai
    )
)
# Cerebras and Mistral sometimes answer an overflow with a bare "400 (no body)".
_NO_BODY_OVERFLOW = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)
_RATE_LIMIT_TEXT = re.compile(r"rate.?limit|too many requests|overloaded", re.IGNORECASE)
_PREVIEW_CHARS = 500


def is_context_overflow(message: str) -> bool:
    """Whether a provider's error text means the request did not fit the model's context window."""
    return any(pattern.search(message) for pattern in OVERFLOW_PATTERNS) or bool(_NO_BODY_OVERFLOW.match(message))


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The wait a provider asked for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date."""
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = _non_negative_float(lowered.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative_float(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_for_status(status: int, headers: Mapping[str, str], body: str) -> ModelError:
    """The error an HTTP response with a non-success status stands for."""
    payload = _json_object(body)
    detail = _payload_message(payload) if payload is not None else _body_preview(body)
    message = f"{status} {_reason(status)}: {detail}" if detail else f"{status} {_reason(status)}"
    code = _error_code(payload)
    retry_after = retry_after_seconds(headers)
    if status == 413 or code == "context_length_exceeded" or is_context_overflow(detail or message):
        return ContextOverflowError(message, status=status, body=body)
    if status in (401, 403):
        return AuthenticationError(message, status=status, body=body)
    if status in (429, 529):
        return RateLimitedError(message, status=status, retry_after=retry_after, body=body)
    if status == 408:
        return TransportError(message, status=status, retry_after=retry_after, body=body)
    if status >= 500 or status == 409:
        return ServerError(message, status=status, retry_after=retry_after, body=body)
    return BadResponseError(message, status=status, body=body)


def error_from_payload(error: object) -> ModelError:
    """The error an in-stream error event carries (OpenAI's `{"error": ...}` chunk, Anthropic's `error`)."""
    payload = error if isinstance(error, Mapping) else {"message": str(error)}
    message = _payload_message({"error": payload}) or "the provider reported an error without a message"
    code = str(payload.get("code") or "")
    kind = str(payload.get("type") or "")
    body = json.dumps(payload, ensure_ascii=False, default=str)
    if code == "context_length_exceeded" or is_context_overflow(message):
        return ContextOverflowError(message, body=body)
    if code == "insufficient_quota":
        quota = RateLimitedError(f"Quota exceeded, check your plan and billing details: {message}", body=body)
        quota.retryable = False  # waiting does not refill a quota
        return quota
    if kind in ("authentication_error", "permission_error"):
        return AuthenticationError(message, body=body)
    if kind in ("rate_limit_error", "overloaded_error") or _RATE_LIMIT_TEXT.search(message):
        return RateLimitedError(message, body=body)
    if kind == "invalid_request_error":
        return BadResponseError(message, body=body)
    return ServerError(message, body=body)


def bad_chunk(what: str, data: str) -> BadResponseError:
    """A malformed stream chunk, named with what was wrong and a preview of the chunk itself."""
    return BadResponseError(f"malformed stream chunk: {what}: {_body_preview(data, 200)}", body=data)


_CHUNK_DECODER = json.JSONDecoder()


def parse_chunk(data: str) -> dict[str, Any]:
    """One SSE `data:` payload as a JSON object, or a `BadResponseError` saying why it is not one."""
    if data.isascii() and "\\u" not in data and data.count("{") + data.count("[") <= json_text.MAX_NESTING:
        # A stream's typical chunk (a token's delta): without a character or an escape that could be a lone
        # surrogate, and with too few brackets to nest too deeply, so `json_text.loads`'s checks cannot find
        # anything; this skips them (a microsecond an event). Anything else, or anything this does not parse
        # whole into an object, goes the long way, which also words the errors.
        try:
            value, end = _CHUNK_DECODER.raw_decode(data)
        except ValueError:
            pass
        else:
            if end == len(data) and isinstance(value, dict):
                return value
    try:
        value = json_text.loads(data)
    except ValueError as exc:
        raise bad_chunk(f"invalid JSON ({exc})", data) from None
    if not isinstance(value, dict):
        raise bad_chunk(f"expected a JSON object, got {type(value).__name__}", data)
    return value


def _payload_message(payload: Mapping[str, Any]) -> str:
    error = payload.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("message"), str):
        return str(error["message"])
    for value in (payload.get("message"), error, payload.get("detail")):
        if isinstance(value, str) and value:
            return value
    return _body_preview(json.dumps(payload, ensure_ascii=False, default=str))


def _error_code(payload: Mapping[str, Any] | None) -> str:
    error = payload.get("error") if payload else None
    return str(error.get("code") or "") if isinstance(error, Mapping) else ""


def _json_object(body: str) -> dict[str, Any] | None:
    try:
        value = json_text.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _body_preview(body: str, limit: int = _PREVIEW_CHARS) -> str:
    if re.match(r"\s*(<!doctype|<html)", body, re.IGNORECASE):
        return "the provider answered with an HTML page (a gateway or proxy error?)"
    single = " ".join(body.split())
    return single if len(single) <= limit else f"{single[:limit]}… ({len(body)} bytes total)"


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Overloaded" if status == 529 else "Error"


def _non_negative_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number >= 0 and number == number else None
