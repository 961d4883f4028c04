"""The local-server probe: a port that takes the connection gets time to answer; a closed or mute one is left out."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from loopback_text_server import LoopbackTextServer

from strata_providers.local_servers import LocalServer, probe

pytestmark = pytest.mark.anyio


BUSY_PAUSE = 0.6
"""Longer than the probe's connect deadline: the server took the connection, and answers late as a busy one would."""


def models_after_a_pause(path: str) -> tuple[int, str]:
    time.sleep(BUSY_PAUSE)
    return 200, json.dumps({"data": [{"id": "busy-model"}]})


@pytest.fixture
def slow_server() -> Iterator[str]:
    """Lists one model after `BUSY_PAUSE`."""
    server = LoopbackTextServer(models_after_a_pause)
    try:
        yield server.url("/v1")
    finally:
        server.close()


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
