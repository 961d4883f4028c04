"""A stream chunk nested 100,000 deep is a bad response for that call, never a RecursionError."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from hostile_server import HostileServer, raw
from provider_kit import WIRES, Wire, collect, info_for

from strata_core.llm import BadResponseError, LanguageModel, StreamFailed
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint

pytestmark = pytest.mark.anyio


def model(wire: Wire, base_url: str, client: httpx.AsyncClient) -> LanguageModel:
    get_client: Callable[[], httpx.AsyncClient] = lambda: client  # noqa: E731
    cls = OpenAIChatModel if wire == "chat" else AnthropicMessagesModel
    return cls(info_for(wire), Endpoint(base_url, "k"), get_client, RetryPolicy(max_attempts=1))


@pytest.mark.parametrize("wire", WIRES)
async def test_a_chunk_nested_too_deeply_is_a_bad_response(wire: Wire, client: httpx.AsyncClient) -> None:
    deep = b"data: " + b'{"choices":' + b"[" * 100_000 + b"\n\n"
    with HostileServer(raw(deep)) as server:
        events = await collect(model(wire, server.base_url, client))
    last = events[-1]
    assert isinstance(last, StreamFailed) and isinstance(last.error, BadResponseError)
    assert "nested too deeply" in last.error.message
