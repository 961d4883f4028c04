"""Instruction URLs are capped like webfetch (5 MB, abandoned past it) and must be text."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from strata_core.context.instruction import MAX_URL_BYTES, HttpUrlFetcher, UrlFetchError

pytestmark = pytest.mark.anyio

HUGE = 50 * 1024 * 1024
CHUNK = b"x" * 65536


class Bodies(BaseHTTPRequestHandler):
    """/huge streams 50 MB with no declared length, /declared says 50 MB, others are small."""

    sent: ClassVar[dict[str, int]] = {}

    def do_GET(self) -> None:
        self.send_response(200)
        kinds = {"/png": "image/png", "/octet": "application/octet-stream"}
        self.send_header("content-type", kinds.get(self.path, "text/plain; charset=utf-8"))
        if self.path == "/declared":
            self.send_header("content-length", str(HUGE))
        self.end_headers()
        body = {"/ok": b"Be kind.", "/nul": b"text\0with a NUL", "/png": b"\x89PNG\r\n\x1a\n"}.get(self.path)
        if body is not None:
            self.wfile.write(body)
            return
        sent = 0
        try:
            while sent < HUGE:
                self.wfile.write(CHUNK)
                sent += len(CHUNK)
        except OSError:
            pass  # the client stopped reading, as it should
        finally:
            Bodies.sent[self.path] = sent

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Bodies)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_text_url_is_read(base_url: str) -> None:
    assert await HttpUrlFetcher().get_text(f"{base_url}/ok") == "Be kind."


@pytest.mark.parametrize("path", ["/huge", "/declared"])
async def test_a_body_over_5_mb_is_refused_without_reading_it_all(base_url: str, path: str) -> None:
    with pytest.raises(UrlFetchError, match="larger than the 5 MB an instruction URL may be"):
        await HttpUrlFetcher().get_text(f"{base_url}{path}")
    assert Bodies.sent.get(path, 0) < 4 * MAX_URL_BYTES


@pytest.mark.parametrize(
    ("path", "reason"),
    [("/png", "it is image/png"), ("/octet", "it is application/octet-stream"), ("/nul", "NUL bytes")],
)
async def test_a_body_that_is_not_text_is_refused(base_url: str, path: str, reason: str) -> None:
    with pytest.raises(UrlFetchError, match=reason):
        await HttpUrlFetcher().get_text(f"{base_url}{path}")
