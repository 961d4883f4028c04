"""A real HTTP server on 127.0.0.1 for tests that fetch over the wire: instruction URLs, skill packs, TLS."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[str], tuple[int, str]]


def _never(path: str) -> bool:
    return False


class LoopbackTextServer:
    """Answers each GET with `route(path) -> (status, body)`, from its own thread.

    A path for which `hangs(path)` is true is held until the server closes (30 s at most), so a client's
    timeout is what ends it. Every requested path is recorded in `requests`.
    """

    def __init__(self, route: Route, hangs: Callable[[str], bool] = _never) -> None:
        release = self.release = threading.Event()
        requests: list[str] = []
        self.requests = requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                if hangs(self.path):
                    release.wait(30)
                status, body = route(self.path)
                payload = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up first (a held path past its timeout): nothing is left to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port: int = self.server.server_address[1]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
