"""The HTTP client factory shares one verifying TLS context, and builds it only when a request needs TLS."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from typing import Any

import pytest
from loopback_text_server import LoopbackTextServer

from strata_core import http


@pytest.fixture
def plain_server() -> Iterator[str]:
    server = LoopbackTextServer(lambda path: (200, "ok"))
    yield server.url("/")
    server.close()


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
