"""The HTTP client factory shares one verifying TLS context instead of rebuilding it for every client."""

from __future__ import annotations

import ssl
from typing import Any

import pytest

from strata_core import http


def test_clients_share_one_verifying_tls_context() -> None:
    context = http.tls_context()
    assert context is http.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


@pytest.mark.anyio
@pytest.mark.parametrize("loopback_only", [True, False])
async def test_every_client_uses_the_shared_context(loopback_only: bool) -> None:
    http.set_loopback_only(loopback_only)
    async with http.make_client() as client:
        transport: Any = client._transport
        if loopback_only:
            transport = transport._inner
        assert transport._pool._ssl_context is http.tls_context()
