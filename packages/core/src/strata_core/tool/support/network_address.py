"""Whether a URL leads into the machine or its private network: loopback, link-local, private and other
non-global ranges, judged on the addresses the host name resolves to (so `localtest.me` counts as loopback).

webfetch asks the `private_network` permission before each such request (every redirect hop included), so a
model cannot reach a cloud metadata service, a database on localhost or the router without a person saying so.
The check resolves the name itself; a resolver that answers differently a moment later (DNS rebinding) is
not covered.
"""

from __future__ import annotations

import ipaddress
import socket

import anyio
import httpx

PRIVATE_NETWORK = "private_network"
"""The permission key for requests to non-global addresses (ask by default)."""


def _is_private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


async def private_address(url: str) -> str | None:
    """The first non-global address `url`'s host resolves to, or None (none, or the name does not resolve)."""
    parsed = httpx.URL(url)
    host = parsed.host
    if not host:
        return None
    try:
        return host if _is_private(host) else None
    except ValueError:
        pass  # a name, not an address literal
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return None  # the request itself will fail with a clear error
    for *_, sockaddr in infos:
        address = str(sockaddr[0])
        if _is_private(address):
            return address
    return None
