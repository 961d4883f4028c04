"""A loopback model server that misbehaves on purpose: keepalives only, endless deltas, silence, raw bodies.

    with HostileServer(endless_text) as server:
        ...  # point a provider's baseURL at server.base_url
        assert server.model_requests == 1

Each model request (a POST whose body is not a title request) is answered by `behaviour(wire)`, an
iterator of byte chunks written and flushed one by one; a `None` chunk means "say nothing more until the
server stops". Title requests get a plain short answer, so only the call under test misbehaves. Every
endless behaviour stops when the client goes away or the server closes (and after `MAX_SECONDS` at most),
so no test can leave it running.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

Wire = Literal["chat", "messages"]
Behaviour = Callable[[Wire], Iterator[bytes | None]]
MAX_SECONDS = 120.0
"""No behaviour streams longer than this, whatever the client does."""
_TICK = 0.02


def sse(data: Any, event: str | None = None) -> bytes:
    """One SSE event carrying `data` (a string as is, anything else as JSON)."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def keepalive_only(wire: Wire) -> Iterator[bytes | None]:
    """`: ping` comments, forever: bytes keep arriving, but never an event."""
    while True:
        yield b": ping\n\n"


def endless_text(wire: Wire) -> Iterator[bytes | None]:
    """Text deltas forever, never a finish."""
    piece = "lorem ipsum " * 8
    if wire == "messages":
        yield sse({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}, "message_start")
        yield sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        delta = sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})
    else:
        delta = sse({"choices": [{"index": 0, "delta": {"content": piece}}]})
    while True:
        yield delta


def silent_after_headers(wire: Wire) -> Iterator[bytes | None]:
    """The status and headers, then nothing at all."""
    yield None


def raw(*chunks: bytes) -> Behaviour:
    """A fixed stream, e.g. `raw(sse("[DONE]"))`; the connection closes after it."""

    def behaviour(wire: Wire) -> Iterator[bytes | None]:
        yield from chunks

    return behaviour


def _title_answer(wire: Wire) -> list[bytes]:
    if wire == "messages":
        return [
            sse({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
            sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "Title"}}),
            sse({"type": "content_block_stop", "index": 0}),
            sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}}),
            sse({"type": "message_stop"}),
        ]
    return [sse({"choices": [{"index": 0, "delta": {"content": "Title"}, "finish_reason": "stop"}]}), sse("[DONE]")]


class HostileServer:
    """Answers model calls with `behaviour`, from its own thread; counts them in `model_requests`."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.stopped = threading.Event()
        self.model_requests = 0
        self.bodies: list[Any] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                wire: Wire = "messages" if self.path.rstrip("/").endswith("/messages") else "chat"
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                if "title generator" in json.dumps(body).lower():
                    self._send(iter(_title_answer(wire)))
                    return
                server.model_requests += 1
                server.bodies.append(body)
                self._send(behaviour(wire))

            def _send(self, chunks: Iterator[bytes | None]) -> None:
                deadline = time.monotonic() + MAX_SECONDS
                try:
                    for chunk in chunks:
                        if chunk is None:
                            server.stopped.wait(max(0.0, deadline - time.monotonic()))
                            return
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        if server.stopped.wait(_TICK) or time.monotonic() > deadline:
                            return
                except OSError:
                    return  # the client went away: that is how a bounded client ends an endless stream

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
