"""How a model call fails: one `ModelError` tree, each kind saying whether a retry may help."""

from __future__ import annotations

from strata_core.errors import StrataError


class ModelError(StrataError):
    """A failure talking to a model. Subclasses say what kind; `retryable` says whether to try again."""

    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retry_after = retry_after
        """Seconds to wait before retrying, when the provider said so."""
        self.body = body

    @property
    def kind(self) -> str:
        return type(self).__name__


class AuthenticationError(ModelError):
    """The provider refused the credentials (401/403)."""


class RateLimitedError(ModelError):
    """Too many requests (429), or an overloaded provider (529)."""

    retryable = True


class ContextOverflowError(ModelError):
    """The request does not fit the model's context window; the loop compacts instead of failing."""


class ServerError(ModelError):
    """The provider failed (5xx)."""

    retryable = True


class TransportError(ModelError):
    """The connection failed, timed out, or was cut mid-stream."""

    retryable = True


class ServerNotListeningError(TransportError):
    """A server on this machine or the local network refused the connection: nothing listens at the address,
    and waiting will not start it (a mistyped port, a local model server not running)."""

    retryable = False


class BadResponseError(ModelError):
    """The provider answered with something that is not a valid stream (a malformed chunk, a bad status)."""
