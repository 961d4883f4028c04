"""Every wait of a model call has a deadline: keepalives, silence and endless output cannot hold a run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import anyio
import httpx
import pytest
from hostile_server import Behaviour, HostileServer, endless_text, keepalive_only, raw, silent_after_headers, sse
from provider_kit import WIRES, RecordedSleeps, Wire, collect, info_for, of_type

from strata_core.config.structure import structure_config
from strata_core.llm import LanguageModel, ModelError, RetryScheduled, StreamEvent, StreamFailed, TextDelta
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.catalog import ProviderCatalog
from strata_providers.deadlines import DEFAULT_CHUNK_TIMEOUT, Deadlines
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint

pytestmark = pytest.mark.anyio

TEST_LIMIT = 30.0
"""Each call here must end far sooner; without its deadlines it would run until the server stops."""


def hostile_model(
    wire: Wire, server: HostileServer, client: httpx.AsyncClient, deadlines: Deadlines, retry: RetryPolicy
) -> LanguageModel:
    endpoint = Endpoint(server.base_url, "test-key", deadlines=deadlines)
    get_client: Callable[[], httpx.AsyncClient] = lambda: client  # noqa: E731
    if wire == "chat":
        return OpenAIChatModel(info_for(wire), endpoint, get_client, retry)
    return AnthropicMessagesModel(info_for(wire), endpoint, get_client, retry)


async def run_call(
    wire: Wire, behaviour: Behaviour, client: httpx.AsyncClient, deadlines: Deadlines, retry: RetryPolicy
) -> tuple[list[StreamEvent], int]:
    with HostileServer(behaviour) as server:
        with anyio.fail_after(TEST_LIMIT):
            events = await collect(hostile_model(wire, server, client, deadlines, retry))
        return events, server.model_requests


def final_error(events: Sequence[StreamEvent]) -> ModelError:
    assert isinstance(events[-1], StreamFailed), events[-3:]
    return events[-1].error


def anthropic_pings(wire: Wire) -> Behaviour:
    ping = sse({"type": "ping"}, "ping")
    return raw(sse({"type": "message_start", "message": {"usage": {}}}), *[ping] * 1000)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("behaviour", [keepalive_only, silent_after_headers], ids=["pings", "silent"])
async def test_a_stream_without_output_fails_on_the_chunk_timeout_and_is_retried(
    wire: Wire, behaviour: Behaviour, client: httpx.AsyncClient
) -> None:
    sleeps = RecordedSleeps()
    events, requests = await run_call(wire, behaviour, client, Deadlines(chunk=0.3), RetryPolicy(sleep=sleeps))
    error = final_error(events)
    assert "no output from the model for 0.3 s (provider option chunkTimeout" in error.message
    assert requests == 4 and len(of_type(events, RetryScheduled)) == 3


@pytest.mark.parametrize("wire", ["messages"])
async def test_anthropic_ping_events_do_not_count_as_output(wire: Wire, client: httpx.AsyncClient) -> None:
    events, _ = await run_call(wire, anthropic_pings(wire), client, Deadlines(chunk=0.3), RetryPolicy(max_attempts=1))
    assert "no output from the model for 0.3 s" in final_error(events).message


@pytest.mark.parametrize("wire", WIRES)
async def test_endless_output_ends_at_the_total_deadline_without_a_retry(wire: Wire, client: httpx.AsyncClient) -> None:
    events, requests = await run_call(wire, endless_text, client, Deadlines(total=0.5), RetryPolicy())
    assert of_type(events, TextDelta)
    assert "ran past its 0.5 s deadline (provider option timeout" in final_error(events).message
    assert requests == 1  # output had reached the caller: a retry would repeat it


async def test_retries_stop_when_their_time_budget_is_spent(client: httpx.AsyncClient) -> None:
    policy = RetryPolicy(max_attempts=10, initial_delay=0.01, max_elapsed=0.4)
    events, requests = await run_call("chat", silent_after_headers, client, Deadlines(chunk=0.3), policy)
    assert "within the 0.4 s retry budget (2 attempts)" in final_error(events).message
    assert requests == 2


def test_provider_options_set_the_deadlines_in_milliseconds(tmp_path: Path) -> None:
    config = structure_config(
        {
            "provider": {
                "slow": {
                    "options": {"baseURL": "http://127.0.0.1:9/v1", "chunkTimeout": 1500, "timeout": False},
                    "models": {"m": {}},
                },
                "plain": {"options": {"baseURL": "http://127.0.0.1:9/v1"}, "models": {"m": {}}},
            }
        }
    )
    catalog = ProviderCatalog(config, {}, lambda: httpx.AsyncClient())
    assert catalog.providers["slow"].deadlines == Deadlines(chunk=1.5, total=None)
    assert catalog.providers["plain"].deadlines.chunk == DEFAULT_CHUNK_TIMEOUT < 300
