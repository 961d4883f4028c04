"""The model catalogue in OpenCode's `Provider` and `Model` shapes (`GET /provider`, `GET /config/providers`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from strata_core.llm import ModelInfo
from strata_providers.catalog import ProviderCatalog
from strata_providers.provider_spec import ProviderSpec

_MEDIA = ("text", "audio", "image", "video", "pdf")


def provider_data(spec: ProviderSpec, configured: Iterable[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if spec.base_url:
        options["baseURL"] = spec.base_url
    return {
        "id": spec.id,
        "name": spec.name,
        "source": "config" if spec.id in configured else "env",
        "env": list(spec.env),
        "options": options,
        "models": {model_id: model_data(info, spec) for model_id, info in spec.models.items()},
    }


def model_data(info: ModelInfo, spec: ProviderSpec) -> dict[str, Any]:
    caps = info.capabilities
    media_in = {kind: kind == "text" or (caps.attachment and kind in ("image", "pdf")) for kind in _MEDIA}
    return {
        "id": info.id,
        "providerID": info.provider_id,
        "api": {"id": info.api_model_id, "url": spec.base_url or "", "npm": info.npm},
        "name": info.name or info.id,
        "capabilities": {
            "temperature": caps.temperature,
            "reasoning": caps.reasoning,
            "attachment": caps.attachment,
            "toolcall": caps.tool_call,
            "input": media_in,
            "output": {kind: kind == "text" for kind in _MEDIA},
            "interleaved": False,
        },
        "cost": _cost(info),
        "limit": {"context": info.limits.context, "output": info.limits.output},
        "status": "active",
        "options": dict(info.options),
        "headers": dict(info.headers),
        "release_date": info.release_date,
    }


def _cost(info: ModelInfo) -> dict[str, Any]:
    """OpenCode's model cost shape, from the catalogue's prices (0 where none are known)."""
    base = info.cost.base if info.cost is not None else None
    if base is None:
        return {"input": 0, "output": 0, "cache": {"read": 0, "write": 0}}
    return {"input": base.input, "output": base.output, "cache": {"read": base.cache_read, "write": base.cache_write}}


def default_models(specs: Iterable[ProviderSpec]) -> dict[str, str]:
    """Each provider's first model, as OpenCode's `default` map names one per provider."""
    return {spec.id: next(iter(spec.models)) for spec in specs if spec.models}


def catalog_of(resolver: object) -> ProviderCatalog | None:
    """The runtime's catalogue; None when the runtime was given another resolver (tests, embedders)."""
    return resolver if isinstance(resolver, ProviderCatalog) else None
