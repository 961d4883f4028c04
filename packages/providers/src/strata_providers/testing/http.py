"""Just enough HTTP/1.1 for the scripted server: read one request, send JSON, stream SSE in chunks.

Every connection serves one request and is closed (`connection: close`), which keeps the server simple and
makes a dropped connection mean exactly one thing: that request's client went away.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import anyio
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from attrs import frozen

_MAX_HEAD = 1 << 16
_GONE = (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.IncompleteRead)
_STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
)
_LAST_CHUNK = b"0\r\n\r\n"


@frozen
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


async def read_request(receive: BufferedByteReceiveStream) -> HttpRequest | None:
    """The next request on a connection, or None when the client left (or sent something unreadable)."""
    try:
        head = await receive.receive_until(b"\r\n\r\n", _MAX_HEAD)
        request_line, *header_lines = head.decode("latin-1").split("\r\n")
        method, path, _version = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _read_chunked(receive)
        else:
            length = int(headers.get("content-length") or 0)
            body = await receive.receive_exactly(length) if length else b""
    except (*_GONE, anyio.DelimiterNotFound, ValueError):
        return None
    return HttpRequest(method, path, headers, body)


async def send_json(stream: SocketStream, status: int, payload: Any, headers: Sequence[tuple[str, str]] = ()) -> None:
    data = json.dumps(payload).encode()
    head = [f"HTTP/1.1 {status} {_phrase(status)}", "content-type: application/json",
            f"content-length: {len(data)}", "connection: close", *(f"{k}: {v}" for k, v in headers)]  # fmt: skip
    try:
        await stream.send("\r\n".join(head).encode() + b"\r\n\r\n" + data)
    except _GONE:
        pass


async def stream_response(
    stream: SocketStream,
    receive: BufferedByteReceiveStream,
    events: Sequence[bytes],
    *,
    delay: float = 0.0,
    hang: bool = False,
    complete: bool = True,
) -> bool:
    """Send `events` as a chunked event stream; False if the client left before it was all sent.

    `hang` keeps the response open after the events until the client leaves; `complete=False` ends it
    without the final chunk, as a connection cut mid-stream would.
    """
    client_left = False
    async with anyio.create_task_group() as group:

        async def watch_for_client_leaving() -> None:
            nonlocal client_left
            try:
                while True:
                    await receive.receive()
            except _GONE:
                client_left = True
                group.cancel_scope.cancel()

        group.start_soon(watch_for_client_leaving)
        try:
            await _send_events(stream, events, delay)
            if hang:
                await anyio.sleep_forever()
            if complete:
                await stream.send(_LAST_CHUNK)
        except _GONE:
            client_left = True
        group.cancel_scope.cancel()
    return not client_left


async def _send_events(stream: SocketStream, events: Sequence[bytes], delay: float) -> None:
    if not delay:
        await stream.send(_STREAM_HEAD + b"".join(_chunk(event) for event in events))
        return
    await stream.send(_STREAM_HEAD)
    for event in events:
        await anyio.sleep(delay)
        await stream.send(_chunk(event))


async def _read_chunked(receive: BufferedByteReceiveStream) -> bytes:
    body = b""
    while True:
        size = int((await receive.receive_until(b"\r\n", 1024)).split(b";")[0], 16)
        if size == 0:
            await receive.receive_until(b"\r\n", _MAX_HEAD)
            return body
        body += await receive.receive_exactly(size)
        await receive.receive_exactly(2)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Overloaded" if status == 529 else "Error"
