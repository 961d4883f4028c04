"""Connections pinned to the addresses that were checked: webfetch's defence against DNS rebinding.

A check that resolves a host name and a connection that resolves it again can see two answers: a hostile DNS
server says "public" to the first and `127.0.0.1` to the second. Here the name is resolved once per
connection, every address it gave is judged (`network_address.is_private`), a non-global one is put to
`approve` (which asks the person, and raises to refuse) before anything is dialled, and the connection goes to
those very addresses as IP literals, so nothing resolves the name again. TLS still verifies the certificate
and sends SNI for the host name (httpcore passes the origin's host to `start_tls`), and `Host` is the
request's own header.

Proxies: `http.make_client` always hands httpx a transport, and httpx then ignores `HTTP(S)_PROXY`; so the
address connected to is always the target's own, never a proxy's.

Imported on the first fetch: httpcore is not otherwise loaded by a `strata` start-up.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

import anyio
import httpcore
import httpx

from strata_core.http import tls_context
from strata_core.tool.support.network_address import is_address, is_private

Resolve = Callable[[str, int], Awaitable[Sequence[str]]]
"""The addresses a host name resolves to, for a port (raises OSError when it does not resolve)."""
Approve = Callable[[str, str], Awaitable[None]]
"""Called with a host and the first non-global address it resolved to, before any connection; raises to refuse."""

_HTTPCORE_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
    httpcore.ConnectionNotAvailable,
)


async def resolve_addresses(host: str, port: int) -> list[str]:
    """What the system resolver answers for `host`, each address once, in its order."""
    infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in infos))


class PinnedNetworkBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves each host once, asks `approve` about a non-global answer,
    and connects (through `inner`, httpcore's anyio backend by default) only to the addresses it judged."""

    def __init__(
        self, approve: Approve, resolve: Resolve = resolve_addresses, inner: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        self._approve = approve
        self._resolve = resolve
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface: the connect timeout, per attempt
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self._addresses(host, port, timeout)
        private = next((address for address in addresses if is_private(address)), None)
        if private is not None:
            await self._approve(host, private)  # not under the connect timeout: a person may be answering
        failure: Exception = httpcore.ConnectError(f"{host} resolved to no address")
        for address in addresses:
            try:
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:  # the next address may answer
                failure = error
        raise failure

    async def _addresses(self, host: str, port: int, seconds: float | None) -> Sequence[str]:
        if is_address(host):
            return [host]  # a literal is judged as given; there is nothing to resolve
        try:
            with anyio.fail_after(seconds):
                return await self._resolve(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from None
        except OSError as error:
            raise httpcore.ConnectError(f"cannot resolve {host}: {error}") from None

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.UnsupportedProtocol("webfetch connects over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    # httpx names its transport errors after httpcore's (ConnectError, ReadTimeout, ...): raise the httpx one,
    # so callers see the same error tree as from any other Strata client.
    try:
        yield
    except _HTTPCORE_ERRORS as error:
        kind = getattr(httpx, type(error).__name__, None)
        if not (isinstance(kind, type) and issubclass(kind, httpx.TransportError)):
            kind = httpx.TransportError
        raise kind(str(error), request=request) from error


class _ResponseBody(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors(self._request):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport over httpcore's connection pool on a `PinnedNetworkBackend`: HTTP/1.1, httpx's
    default pool limits, and for https Strata's one verifying TLS context (`http.tls_context`)."""

    def __init__(self, backend: httpcore.AsyncNetworkBackend) -> None:
        self._backend = backend
        self._pools: dict[bytes, httpcore.AsyncConnectionPool] = {}

    def _pool(self, scheme: bytes) -> httpcore.AsyncConnectionPool:
        if scheme not in self._pools:
            self._pools[scheme] = httpcore.AsyncConnectionPool(
                ssl_context=tls_context() if scheme == b"https" else None,  # plain http never loads a CA bundle
                max_connections=100,
                max_keepalive_connections=20,
                keepalive_expiry=5.0,
                network_backend=self._backend,
            )
        return self._pools[scheme]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            response = await self._pool(url.raw_scheme).handle_async_request(core_request)
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseBody(response.stream, request),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        for pool in self._pools.values():
            await pool.aclose()
