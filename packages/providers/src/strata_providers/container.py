"""The providers' dependency-injection container: declarations only, no I/O.

    container = ProvidersContainer(config_blocks=config.blocks, env=os.environ)
    async with container.runtime().open():
        model = container.catalog().resolve("anthropic/claude-sonnet-4-5")

Tests override any provider before first use, e.g. `container.catalog.override(providers.Object(fake))`.
"""

from __future__ import annotations

from collections.abc import Mapping

from dependency_injector import containers, providers

from strata_core.config import ConfigBlocks
from strata_providers.catalog import ProviderCatalog
from strata_providers.params import ProviderParameters
from strata_providers.retry import RetryPolicy
from strata_providers.runtime import ProviderRuntime


class ProvidersContainer(containers.DeclarativeContainer):
    config_blocks: providers.Dependency[ConfigBlocks] = providers.Dependency()
    """The loaded config's typed blocks (`provider`, `model`, `small_model`, ...)."""
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency()
    """Where API keys come from (normally `os.environ`)."""

    retry_policy = providers.Singleton(RetryPolicy)
    runtime = providers.Singleton(ProviderRuntime)
    catalog = providers.Singleton(ProviderCatalog, config_blocks, env, runtime.provided.client, retry=retry_policy)
    parameters = providers.Singleton(ProviderParameters)
