"""A hostile DNS server and the network behind it, for webfetch's rebinding tests, with no real DNS or dialling.

    network = HostileNetwork(port, {"rebind.localhost": [PUBLIC, "127.0.0.1"]})
    network.install(monkeypatch)
    ...  # fetch http://rebind.localhost:PORT/...
    assert network.dialled == [PUBLIC]

`install` replaces `anyio.getaddrinfo` and `anyio.connect_tcp`, which every resolution and connection of a
fetch goes through (Strata's own look-ups and httpcore's anyio backend alike), so the same test runs against
any version of webfetch. Each look-up of a name gets the next of its answers (the last one repeats). A
connection records the address it was made to and is then served by the test's loopback server on `port`,
which stands in for whatever lives at that address: a public address is never really dialled.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

import anyio
import pytest
from anyio.abc import SocketStream
from attrs import define, field

from strata_core.tool.support.network_address import is_address

PUBLIC = "93.184.216.34"
"""A global address, the attacker's harmless first answer; only ever recorded, never dialled."""

_real_connect_tcp = anyio.connect_tcp

AddrInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]


@define
class HostileNetwork:
    port: int
    answers: dict[str, list[str]]
    lookups: list[str] = field(factory=list)
    dialled: list[str] = field(factory=list)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(anyio, "getaddrinfo", self.getaddrinfo)
        monkeypatch.setattr(anyio, "connect_tcp", self.connect_tcp)

    def _answer(self, host: str) -> str:
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, f"the test DNS knows no {host}")
        self.lookups.append(host)
        answers = self.answers[host]
        return answers.pop(0) if len(answers) > 1 else answers[0]

    async def getaddrinfo(self, host: str, port: int, **options: Any) -> list[AddrInfo]:
        address = self._answer(host)
        if ":" in address:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    async def connect_tcp(self, remote_host: str, remote_port: int, **options: Any) -> SocketStream:
        # Given a name, resolve it here, as anyio.connect_tcp itself would: that is the second look-up.
        address = remote_host if is_address(remote_host) else self._answer(remote_host)
        self.dialled.append(address)
        if remote_port != self.port:
            raise OSError(errno.ECONNREFUSED, f"nothing listens on {address}:{remote_port} in the test network")
        return await _real_connect_tcp("127.0.0.1", self.port)
