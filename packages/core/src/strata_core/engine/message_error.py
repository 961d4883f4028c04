"""A failure as OpenCode stores it on an assistant message: its error name, message and data."""

from __future__ import annotations

from typing import Any

from strata_core import llm
from strata_core.message import MessageError


def message_error(error: BaseException, provider_id: str = "") -> MessageError:
    """OpenCode's names for what went wrong: ProviderAuthError, APIError, ContextOverflowError, UnknownError."""
    if isinstance(error, llm.AuthenticationError):
        return MessageError("ProviderAuthError", error.message, {"providerID": provider_id})
    if isinstance(error, llm.ContextOverflowError):
        return MessageError("ContextOverflowError", error.message, {"responseBody": error.body} if error.body else {})
    if isinstance(error, llm.ModelError):
        data: dict[str, Any] = {"isRetryable": error.retryable}
        if error.status is not None:
            data["statusCode"] = error.status
        if error.body:
            data["responseBody"] = error.body
        return MessageError("APIError", error.message, data)
    return MessageError("UnknownError", str(error) or type(error).__name__)
