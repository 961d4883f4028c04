"""The pinned network backend on its own: one resolution, every answer judged, the connection made to the very
address judged. Resolver and network are fakes handed to the backend: nothing resolves or dials for real."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterable, Sequence

import httpcore
import httpx
import pytest
from attrs import define, field
from rebinding_dns import PUBLIC

from strata_core.tool.support.pinned_network import PinnedNetworkBackend, PinnedTransport

pytestmark = pytest.mark.anyio

RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"


class Refused(Exception):
    """What the fake person answers when asked."""


@define
class Answers:
    """A resolver that answers the same addresses each time and counts the look-ups."""

    addresses: list[str]
    lookups: list[str] = field(factory=list)

    async def __call__(self, host: str, port: int) -> Sequence[str]:
        self.lookups.append(host)
        if not self.addresses:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.addresses


@define
class Approvals:
    refuse: bool = False
    asked: list[tuple[str, str]] = field(factory=list)

    async def __call__(self, host: str, address: str) -> None:
        self.asked.append((host, address))
        if self.refuse:
            raise Refused()


class ScriptedStream(httpcore.AsyncNetworkStream):
    """One connection of the fake network: records what is written and the TLS server name, answers RESPONSE."""

    def __init__(self) -> None:
        self.written = b""
        self.server_hostname: str | None = None
        self._unread = RESPONSE

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        chunk, self._unread = self._unread[:max_bytes], self._unread[max_bytes:]
        return chunk

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        self.written += buffer

    async def aclose(self) -> None:
        return None

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> httpcore.AsyncNetworkStream:
        self.server_hostname = server_hostname
        return self


@define
class FakeNetwork(httpcore.AsyncNetworkBackend):
    """Records each address dialled; `unreachable` ones fail with `failure` (a refused connection by default)."""

    unreachable: set[str] = field(factory=set)
    failure: type[Exception] = httpcore.ConnectError
    dialled: list[str] = field(factory=list)
    streams: list[ScriptedStream] = field(factory=list)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.dialled.append(host)
        if host in self.unreachable:
            raise self.failure(f"cannot reach {host}")
        self.streams.append(ScriptedStream())
        return self.streams[-1]

    async def sleep(self, seconds: float) -> None:
        return None


async def test_a_public_answer_is_dialled_at_the_very_address_checked_after_one_look_up() -> None:
    answers, approvals, network = Answers([PUBLIC]), Approvals(refuse=True), FakeNetwork()
    await PinnedNetworkBackend(approvals, answers, network).connect_tcp("rebind.test", 80)
    assert answers.lookups == ["rebind.test"] and network.dialled == [PUBLIC] and approvals.asked == []


NON_GLOBAL = [
    "127.0.0.1",
    "127.8.8.8",
    "::1",
    "::ffff:127.0.0.1",
    "::127.0.0.1",
    "0.0.0.0",
    "::",
    "169.254.169.254",
    "fe80::1%eth0",
    "10.0.0.5",
    "fd00::1",
    "100.64.0.1",
    "224.0.0.1",
]


@pytest.mark.parametrize("private", NON_GLOBAL)
async def test_any_non_global_answer_is_asked_about_before_anything_is_dialled(private: str) -> None:
    approvals, network = Approvals(refuse=True), FakeNetwork()
    with pytest.raises(Refused):
        await PinnedNetworkBackend(approvals, Answers([PUBLIC, private]), network).connect_tcp("rebind.test", 80)
    assert approvals.asked == [("rebind.test", private)] and network.dialled == []


async def test_a_literal_address_is_judged_as_given_without_a_look_up() -> None:
    answers, approvals, network = Answers([]), Approvals(), FakeNetwork()
    backend = PinnedNetworkBackend(approvals, answers, network)
    await backend.connect_tcp("::ffff:127.0.0.1", 80)
    await backend.connect_tcp(PUBLIC, 80)
    assert approvals.asked == [("::ffff:127.0.0.1", "::ffff:127.0.0.1")]
    assert network.dialled == ["::ffff:127.0.0.1", PUBLIC] and answers.lookups == []


@pytest.mark.parametrize("failure", [httpcore.ConnectError, httpcore.ConnectTimeout])
async def test_once_approved_the_checked_addresses_are_tried_in_turn_and_only_they(
    failure: type[Exception],
) -> None:
    network = FakeNetwork(unreachable={"10.0.0.5"}, failure=failure)
    backend = PinnedNetworkBackend(Approvals(), Answers(["10.0.0.5", "127.0.0.1"]), network)
    await backend.connect_tcp("rebind.test", 80)
    assert network.dialled == ["10.0.0.5", "127.0.0.1"]


async def test_over_https_the_host_name_stays_the_tls_server_name_and_the_host_header() -> None:
    network = FakeNetwork()
    transport = PinnedTransport(PinnedNetworkBackend(Approvals(refuse=True), Answers([PUBLIC]), network))
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.get("https://rebind.test/page")
    assert response.text == "ok" and network.dialled == [PUBLIC]
    (stream,) = network.streams
    assert stream.server_hostname == "rebind.test"
    assert stream.written.startswith(b"GET /page HTTP/1.1\r\nHost: rebind.test\r\n")


async def test_a_name_that_does_not_resolve_is_an_httpx_connect_error_naming_it() -> None:
    transport = PinnedTransport(PinnedNetworkBackend(Approvals(), Answers([]), FakeNetwork()))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError, match=r"^cannot resolve nowhere\.test: .*Name or service not known"):
            await client.get("http://nowhere.test/")
