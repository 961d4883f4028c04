"""Whether an address leads into the machine or its private network: loopback, link-local, private and other
non-global ranges, `0.0.0.0` and `::` (which reach this machine), multicast, and IPv6 forms that carry an IPv4
address (`::ffff:127.0.0.1`, `::127.0.0.1`) judged by that address.

webfetch asks the `private_network` permission before each connection to such an address (every redirect hop
included), so a model cannot reach a cloud metadata service, a database on localhost or the router without a
person saying so. A host name is judged on the addresses it resolves to, resolved once for the check and the
connection together (`pinned_network`), so a DNS server that answers differently a moment later changes nothing.
"""

from __future__ import annotations

import ipaddress

PRIVATE_NETWORK = "private_network"
"""The permission key for requests to non-global addresses (ask by default)."""


def is_address(host: str) -> bool:
    """Whether `host` is an IP literal (nothing to resolve) rather than a name."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_private(address: str) -> bool:
    """Whether an IP address (an IPv6 zone id allowed) is not a global unicast one."""
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif int(ip) < 2**32:  # `::a.b.c.d`, the deprecated IPv4-compatible form (and `::`, `::1`)
            ip = ipaddress.IPv4Address(int(ip))
    return not ip.is_global or ip.is_multicast
