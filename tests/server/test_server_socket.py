"""The listening socket `serve` hands uvicorn: what every accepted connection inherits from it."""

from __future__ import annotations

import socket

from strata_server import ServerSettings
from strata_server.server import listen


def test_connections_the_server_accepts_send_small_writes_at_once() -> None:
    # Without TCP_NODELAY a kept-alive client waits for the delayed ACK (~40 ms) on every answer after its
    # first, since the head and the body of an answer are written apart.
    with listen(ServerSettings(port=0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port)) as _client:
            accepted, _ = server.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
