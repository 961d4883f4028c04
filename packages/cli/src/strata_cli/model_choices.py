"""The models `/model` offers: the one place the interactive mode asks which models are usable.

Kept to one function over the catalogue's own list of models to show (`ProviderCatalog.models()`: those of
providers whose key is set, that need none, that the config describes, or local servers that answered).
"""

from __future__ import annotations

from strata_core.llm import ModelResolver
from strata_providers.catalog import ProviderCatalog


def usable_models(resolver: ModelResolver) -> list[str]:
    """`provider/model` references the person can switch to, configured providers first; empty for a resolver
    that cannot list its models (a test double, an embedding application's own)."""
    if not isinstance(resolver, ProviderCatalog):
        return []
    return [info.ref for info in resolver.models()]
