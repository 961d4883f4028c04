"""JSON-RPC 2.0 over a language server's stdio, framed as LSP frames it (`Content-Length` headers).

One `JsonRpcConnection` per server process: `request` and `notify` write messages, `serve` reads until the
server's stdout ends, answering the server's own requests from `on_request` handlers and passing its
notifications to `on_notification`. A reply that never comes is bounded by the caller's timeout; a server
that exits fails every pending request with `LanguageServerGoneError`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream, ByteSendStream

from strata_core.errors import StrataError

RequestHandler = Callable[[Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], None]

_METHOD_NOT_FOUND = -32601
_HEADER_LIMIT = 8192
_BODY_LIMIT = 64 * 1024 * 1024


class LanguageServerGoneError(StrataError):
    """The language server's stdio ended (it exited or crashed) before a reply came."""


class LanguageServerReplyError(StrataError):
    """The language server answered a request with a JSON-RPC error."""

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('message', 'error')} (code {error.get('code')})")


class _Reader:
    """LSP frames out of a byte stream: headers up to a blank line, then `Content-Length` bytes of JSON."""

    def __init__(self, stream: ByteReceiveStream) -> None:
        self._stream = stream
        self._buffer = bytearray()

    async def _fill(self) -> bool:
        try:
            self._buffer += await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return False
        return True

    async def message(self) -> Any | None:
        """The next message, or None at the end of the stream (or a frame no server would send)."""
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > _HEADER_LIMIT or not await self._fill():
                return None
        headers = bytes(self._buffer[:end]).decode("ascii", "replace").split("\r\n")
        del self._buffer[: end + 4]
        length = _content_length(headers)
        if length is None or length > _BODY_LIMIT:
            return None
        while len(self._buffer) < length:
            if not await self._fill():
                return None
        body = bytes(self._buffer[:length])
        del self._buffer[:length]
        try:
            return json.loads(body)
        except ValueError:
            return {}  # a malformed message is dropped, not the connection


def _content_length(headers: list[str]) -> int | None:
    for header in headers:
        name, _, value = header.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


class JsonRpcConnection:
    """Requests and notifications to one server, and its requests and notifications back."""

    def __init__(
        self,
        send: ByteSendStream,
        receive: ByteReceiveStream,
        on_request: Mapping[str, RequestHandler],
        on_notification: NotificationHandler,
    ) -> None:
        self._send = send
        self._reader = _Reader(receive)
        self._on_request = on_request
        self._on_notification = on_notification
        self._pending: dict[int, tuple[anyio.Event, list[Any]]] = {}
        self._next_id = 0
        self._write_lock = anyio.Lock()
        self.closed = False

    async def serve(self) -> None:
        """Read until the server's stdout ends; then fail whatever is still waiting for a reply."""
        async with anyio.create_task_group() as replies:
            while (message := await self._reader.message()) is not None:
                if isinstance(message, dict):
                    self._dispatch(message, replies)
            replies.cancel_scope.cancel()
        self.closed = True
        for done, _ in self._pending.values():
            done.set()

    def _dispatch(self, message: dict[str, Any], replies: anyio.abc.TaskGroup) -> None:
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            replies.start_soon(self._answer, message["id"], method, message.get("params"))
        elif isinstance(method, str):
            self._on_notification(method, message.get("params"))
        elif isinstance(message.get("id"), int) and message["id"] in self._pending:
            done, slot = self._pending[message["id"]]
            slot.append(message)
            done.set()

    async def _answer(self, request_id: Any, method: str, params: Any) -> None:
        handler = self._on_request.get(method)
        if handler is None:
            error = {"code": _METHOD_NOT_FOUND, "message": f"{method} is not handled"}
            await self._write({"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        await self._write({"jsonrpc": "2.0", "id": request_id, "result": await handler(params)})

    async def request(self, method: str, params: Any, seconds: float) -> Any:
        """The result of `method`; `TimeoutError` after `seconds`, `LanguageServerGoneError` if the server ends."""
        if self.closed:
            raise LanguageServerGoneError(f"{method}: the language server has exited")
        self._next_id += 1
        request_id = self._next_id
        done, slot = anyio.Event(), list[Any]()
        self._pending[request_id] = (done, slot)
        try:
            await self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            with anyio.fail_after(seconds):
                await done.wait()
        finally:
            del self._pending[request_id]
        if not slot:
            raise LanguageServerGoneError(f"{method}: the language server exited before answering")
        reply = slot[0]
        if isinstance(reply.get("error"), dict):
            raise LanguageServerReplyError(method, reply["error"])
        return reply.get("result")

    async def notify(self, method: str, params: Any) -> None:
        await self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def _write(self, message: Mapping[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=False).encode()
        try:
            async with self._write_lock:
                await self._send.send(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            self.closed = True
            raise LanguageServerGoneError(f"the language server's stdin is closed ({error})") from None
