"""The providers' dependency-injection container: declarations only, no I/O.

    container = ProvidersContainer(config_data=config.data, env=os.environ)
    async with container.runtime().open():
        model = container.catalog().resolve("anthropic/claude-sonnet-4-5")

Tests override any provider before first use, e.g. `container.catalog.override(providers.Object(fake))`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dependency_injector import containers, providers

from strata_providers.catalog import ProviderCatalog
from strata_providers.params import ProviderParameters
from strata_providers.retry import RetryPolicy
from strata_providers.runtime import ProviderRuntime


class ProvidersContainer(containers.DeclarativeContainer):
    config_data: providers.Dependency[Mapping[str, Any]] = providers.Dependency()
    """The loaded, substituted config (`provider`, `model`, `small_model`, ...)."""
    env: providers.Dependency[Mapping[str, str]] = providers.Dependency()
    """Where API keys come from (normally `os.environ`)."""

    retry_policy = providers.Singleton(RetryPolicy)
    runtime = providers.Singleton(ProviderRuntime)
    catalog = providers.Singleton(ProviderCatalog, config_data, env, runtime.provided.client, retry=retry_policy)
    parameters = providers.Singleton(ProviderParameters)
