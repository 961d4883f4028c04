"""The runtime owns the one HTTP client; the container wires the catalogue to it without I/O."""

from __future__ import annotations

import pytest
from dependency_injector import providers
from provider_kit import collect, of_type, user_request

from strata_core.config.schema import ConfigBlocks
from strata_core.config.structure import structure_config
from strata_core.llm import TextDelta
from strata_providers import ProviderParameters, ProviderRuntime, ProvidersContainer, RuntimeClosedError, open_runtime
from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


def local_config(server: ScriptedServer) -> ConfigBlocks:
    return structure_config(
        {
            "provider": {"local": {"options": {"baseURL": server.base_url}, "models": {"m": {"tool_call": True}}}},
            "model": "local/m",
        }
    )


async def test_open_runtime_gives_a_catalogue_whose_models_can_be_called() -> None:
    async with ScriptedServer([{"text": "hello"}]) as server, open_runtime(local_config(server), {}) as catalog:
        events = await collect(catalog.default_model(), user_request())
    assert "".join(e.text for e in of_type(events, TextDelta)) == "hello"


async def test_the_container_builds_the_catalogue_before_the_runtime_opens() -> None:
    async with ScriptedServer([{"text": "from the container"}]) as server:
        container = ProvidersContainer(config_blocks=local_config(server), env={})
        model = container.catalog().default_model()  # no I/O yet
        with pytest.raises(RuntimeClosedError, match="provider runtime is not open"):
            await collect(model, user_request())
        async with container.runtime().open():
            events = await collect(model, user_request())
    assert "".join(e.text for e in of_type(events, TextDelta)) == "from the container"
    assert isinstance(container.parameters(), ProviderParameters)


async def test_the_client_is_closed_when_the_runtime_closes() -> None:
    runtime = ProviderRuntime()
    async with runtime.open():
        client = runtime.client()
    assert client.is_closed
    with pytest.raises(RuntimeClosedError):
        runtime.client()


def test_tests_can_override_the_catalogue() -> None:
    container = ProvidersContainer(config_blocks=ConfigBlocks(), env={})
    sentinel = object()
    container.catalog.override(providers.Object(sentinel))
    assert container.catalog() is sentinel
