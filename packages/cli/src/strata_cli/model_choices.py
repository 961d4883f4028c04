"""The models `/model` offers: the one place the interactive mode asks which models are usable.

Kept to one function so what counts as usable (today: every model of a provider whose key is set or that needs
none) can be re-pointed at the catalogue's own notion without touching the picker.
"""

from __future__ import annotations

from strata_core.llm import ModelResolver
from strata_providers.catalog import ProviderCatalog


def usable_models(resolver: ModelResolver) -> list[str]:
    """`provider/model` references the person can switch to, configured providers first; empty for a resolver
    that cannot list its models (a test double, an embedding application's own)."""
    if not isinstance(resolver, ProviderCatalog):
        return []
    refs: list[str] = []
    for spec in resolver.providers.values():
        if spec.needs_key and not resolver.api_key(spec):
            continue
        refs += [info.ref for info in spec.models.values()]
    return refs
