"""The one place Strata makes HTTP clients: timeouts, headers, and the loopback-only guard for tests.

Instruction URLs, the webfetch tool and every model wire get their client from here, so a test (or an
embedder) can swap the transport in one place.
"""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Mapping
from functools import cache

import httpx

from strata_core.errors import StrataError

USER_AGENT = "strata/0.1"
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_READ_TIMEOUT = 300.0
"""Between two chunks of a stream: a model can think quietly for a while, but not forever."""

_loopback_only = False


@cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process, shared by every client, built at the first https request.

    httpx builds a fresh context (and reloads the CA bundle, ~20-30 ms) for each client it creates, even one
    that only ever speaks plain http to a local model; instruction URLs, skill pulls and webfetch each make a
    client per request. Sharing one, built on demand, pays that cost once and only when TLS is used.
    """
    return httpx.create_ssl_context()


class OnDemandTlsTransport(httpx.AsyncBaseTransport):
    """Routes https requests to a transport on the shared verifying context, built on first use; others to a
    transport that never loads a CA bundle (its context is never used for plain http, and verifies nothing
    successfully if it ever were, having no trusted certificates)."""

    def __init__(self) -> None:
        self._plain: httpx.AsyncHTTPTransport | None = None
        self._tls: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.transport_for(request.url.scheme).handle_async_request(request)

    def transport_for(self, scheme: str) -> httpx.AsyncHTTPTransport:
        if scheme == "https":
            if self._tls is None:
                self._tls = httpx.AsyncHTTPTransport(verify=tls_context())
            return self._tls
        if self._plain is None:
            self._plain = httpx.AsyncHTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
        return self._plain

    async def aclose(self) -> None:
        for transport in (self._plain, self._tls):
            if transport is not None:
                await transport.aclose()


class NonLoopbackRequestError(StrataError, httpx.TransportError):
    """A request to a host that is not on this machine, refused by the test guard."""


def is_loopback_host(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class LoopbackOnlyTransport(httpx.AsyncBaseTransport):
    """Passes loopback requests to a real transport and refuses everything else (the test suite's guard)."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or OnDemandTlsTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not is_loopback_host(request.url.host):
            raise NonLoopbackRequestError(f"refused non-loopback request to {request.url.host}", request=request)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def set_loopback_only(enabled: bool) -> None:
    """Make every client from `make_client` refuse non-loopback hosts (the test suite turns this on)."""
    global _loopback_only
    _loopback_only = enabled


def make_client(
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    headers: Mapping[str, str] | None = None,
    follow_redirects: bool = True,
    transport: httpx.AsyncBaseTransport | None = None,
) -> httpx.AsyncClient:
    """A new async client with Strata's timeouts; the caller owns (and closes) it.

    `transport` replaces the default one (webfetch's pins connections to checked addresses); the test guard
    still wraps it.
    """
    timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=connect_timeout, pool=connect_timeout)
    inner = transport or OnDemandTlsTransport()
    transport = LoopbackOnlyTransport(inner) if _loopback_only else inner
    return httpx.AsyncClient(
        timeout=timeout,
        headers={"User-Agent": USER_AGENT, **(headers or {})},
        follow_redirects=follow_redirects,
        transport=transport,
    )


async def read_capped(response: httpx.Response, limit: int) -> bytes | None:
    """A streamed response's body, or None as soon as it is longer than `limit` bytes (declared or read).

    The rest of an oversized body is never read: memory stays at about `limit`, whatever the server sends.
    """
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body.extend(chunk)
        if len(body) > limit:
            return None
    return bytes(body)


def is_text_media(content_type: str) -> bool:
    """Whether a `content-type` names text: `text/*`, or JSON, XML, YAML, JavaScript and their `+json`-style kin."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media.startswith("text/"):
        return True
    kind, _, subtype = media.partition("/")
    names = ("json", "xml", "yaml", "x-yaml", "javascript", "markdown", "toml", "x-sh")
    return kind == "application" and (subtype in names or subtype.endswith(("+json", "+xml", "+yaml")))
