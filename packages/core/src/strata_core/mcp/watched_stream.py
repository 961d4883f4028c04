"""A transport's read stream that says when it has ended.

The SDK's session notices that a server's stream has closed (a local server that exited: its stdout reached
EOF) only by failing the next request; until then the server would look connected and its tools would stay
offered. Wrapped in `WatchedStream`, the stream sets `ended` the moment it runs out or is closed, and the
connection marks the server failed at once.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

import anyio

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class ReceiveStream(Protocol[T_co]):
    async def receive(self) -> T_co: ...
    async def aclose(self) -> None: ...


class WatchedStream(Generic[T]):
    """`inner`, item for item; `ended` is set once it has no more (end of stream, or closed by anyone)."""

    def __init__(self, inner: ReceiveStream[T]) -> None:
        self._inner = inner
        self.ended = anyio.Event()

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, where the inner stream keeps one (the SDK looks for it)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> T:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self.ended.set()
            raise

    async def aclose(self) -> None:
        self.ended.set()
        await self._inner.aclose()

    def __aiter__(self) -> WatchedStream[T]:
        return self

    async def __anext__(self) -> T:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> WatchedStream[T]:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
