"""The HTTP client factory shares one verifying TLS context, and builds it only when a request needs TLS."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from strata_core import http


@pytest.fixture
def plain_server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_clients_share_one_verifying_tls_context() -> None:
    context = http.tls_context()
    assert context is http.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


@pytest.mark.anyio
@pytest.mark.parametrize("loopback_only", [True, False])
async def test_plain_http_never_loads_the_ca_bundle(loopback_only: bool, plain_server: str) -> None:
    http.set_loopback_only(loopback_only)
    http.tls_context.cache_clear()
    async with http.make_client() as client:
        response = await client.get(plain_server)
    assert response.text == "ok"
    assert http.tls_context.cache_info().currsize == 0


def test_https_goes_through_the_shared_verifying_context() -> None:
    transport = http.OnDemandTlsTransport()
    tls: Any = transport.transport_for("https")
    assert tls is transport.transport_for("https")
    assert tls._pool._ssl_context is http.tls_context()
    plain: Any = transport.transport_for("http")
    assert plain is not tls
    # The plain side's context trusts no certificate, so it could never complete a TLS handshake.
    assert plain._pool._ssl_context.verify_mode == ssl.CERT_REQUIRED
    assert plain._pool._ssl_context.cert_store_stats()["x509_ca"] == 0
