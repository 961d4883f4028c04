"""A loopback HTTP proxy that records every request it forwards (method, path, status), for tests that need a
client's request log: what OpenCode's TUI asks of `strata serve`. Responses stream through as they arrive, so
server-sent event streams work through it."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

import attrs

HOP_HEADERS = {"connection", "content-length", "transfer-encoding", "host", "keep-alive"}
UPSTREAM_TIMEOUT = 600


@attrs.frozen
class Logged:
    method: str
    path: str
    status: int
    body: bytes


@contextmanager
def logging_proxy(upstream: str) -> Iterator[tuple[str, list[Logged]]]:
    """`(url, log)`: a proxy to `upstream` on a free loopback port, and the requests it has forwarded so far."""
    target = urlparse(upstream)
    assert target.hostname is not None and target.port is not None
    host: str = target.hostname
    port: int = target.port
    log: list[Logged] = []
    lock = threading.Lock()

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return None

        def forward(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            connection = http.client.HTTPConnection(host, port, timeout=UPSTREAM_TIMEOUT)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            connection.request(self.command, self.path, body=body or None, headers=headers)
            response = connection.getresponse()
            with lock:
                log.append(Logged(self.command, self.path, response.status, body))
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in HOP_HEADERS:
                    self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                while chunk := response.read1(65536):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (OSError, http.client.HTTPException, ValueError):
                return  # one side hung up mid-stream (an event stream at the end of the test)
            finally:
                connection.close()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", log
    finally:
        server.shutdown()
        server.server_close()
