"""The local-server probe: a port that takes the connection gets time to answer; a closed or mute one is left out."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from strata_providers.local_servers import LocalServer, probe

pytestmark = pytest.mark.anyio


class SlowModelsHandler(BaseHTTPRequestHandler):
    """Lists one model after a pause longer than the probe's connect deadline, as a busy server would."""

    pause = 0.6

    def do_GET(self) -> None:
        time.sleep(self.pause)
        body = json.dumps({"data": [{"id": "busy-model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def slow_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowModelsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def mute_listener() -> Iterator[str]:
    """Takes connections (the kernel's backlog accepts them) and never answers a byte."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()


def closed_port() -> str:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{spare.getsockname()[1]}/v1"


async def test_a_server_slower_to_answer_than_to_connect_is_still_listed(slow_server: str) -> None:
    found = await probe([LocalServer("lmstudio", "LM Studio", slow_server)], deadline=0.2, answer_deadline=5.0)
    assert found == {"lmstudio": ["busy-model"]}


async def test_closed_and_mute_servers_are_left_out_beside_one_that_answers(
    slow_server: str, mute_listener: str
) -> None:
    servers = [
        LocalServer("ollama", "Ollama", closed_port()),
        LocalServer("vllm", "vLLM", mute_listener),
        LocalServer("lmstudio", "LM Studio", slow_server),
    ]
    found = await probe(servers, deadline=0.2, answer_deadline=1.5)
    assert found == {"lmstudio": ["busy-model"]}
