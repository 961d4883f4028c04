"""OpenCode's `provider.<id>` config (already typed by `strata_core.config`) as `ProviderSpec`s, merged over a
built-in one when it exists.

Read as OpenCode writes it: `npm`, `name`, `env`, `options.baseURL`, `options.apiKey` (with `{env:VAR}`
already substituted by the config loader), `options.headers`, and `models.<id>` with `name`, `id` (the
provider's own model id), `limit {context, output, input}`, `tool_call`, `reasoning`, `attachment`,
`temperature`, `modalities`, `options`, `headers` and `provider.npm`. Wrong types never get here: the config
loader refuses them, naming the file and the key.
"""

from __future__ import annotations

from typing import TypeVar

import attrs

from strata_core.config import ModelConfig, ProviderConfig
from strata_core.llm import ModelCapabilities, ModelInfo, ModelLimits, model_cost
from strata_providers.deadlines import Deadlines
from strata_providers.provider_spec import ANTHROPIC_NPM, COMPATIBLE_NPM, ProviderSpec
from strata_providers.variants import configured_variants, package_variants

T = TypeVar("T")


def merge_provider_config(provider_id: str, config: ProviderConfig, base: ProviderSpec | None) -> ProviderSpec:
    """The provider `config` describes, over `base` (a built-in provider of the same id) when there is one."""
    npm = config.npm or (base.npm if base else COMPATIBLE_NPM)
    spec = base or ProviderSpec(provider_id, provider_id, npm, None, open_models=False, source="config")
    models = dict(spec.models)
    for model_id, model in config.models.items():
        models[model_id] = config_model(provider_id, model_id, model, models.get(model_id), npm)
    # OpenCode's filters, applied to the merged list: a blacklisted model is gone, a whitelist keeps only its own.
    models = {
        model_id: info
        for model_id, info in models.items()
        if not (config.blacklist and model_id in config.blacklist)
        and not (config.whitelist is not None and model_id not in config.whitelist)
    }
    return attrs.evolve(
        spec,
        name=config.name or spec.name,
        npm=npm,
        base_url=config.options.base_url or spec.base_url,
        env=config.env if config.env is not None else spec.env,
        api_key=config.options.api_key or spec.api_key,
        headers={**spec.headers, **config.options.headers},
        deadlines=Deadlines.from_options(config.options),
        models=models,
    )


def config_model(provider_id: str, model_id: str, config: ModelConfig, base: ModelInfo | None, npm: str) -> ModelInfo:
    """A model from its config entry; unset fields keep the built-in model's values (or OpenCode's defaults:
    no temperature, no reasoning, no attachments, tool calls on, limits unknown)."""
    model_npm = config.provider.npm or npm
    caps = base.capabilities if base else ModelCapabilities(temperature=False)
    limits = base.limits if base else ModelLimits()
    attachment = config.attachment
    if attachment is None and config.modalities is not None and config.modalities.input:
        attachment = any(kind in config.modalities.input for kind in ("image", "pdf"))
    info = ModelInfo(
        provider_id=provider_id,
        id=model_id,
        api_id=config.id or (base.api_id if base else ""),
        name=config.name or (base.name if base else model_id),
        npm=model_npm,
        limits=ModelLimits(
            context=_either(config.limit.context, limits.context),
            output=_either(config.limit.output, limits.output),
            input=_either(config.limit.input, limits.input),
        ),
        capabilities=ModelCapabilities(
            tool_call=_either(config.tool_call, caps.tool_call),
            reasoning=_either(config.reasoning, caps.reasoning),
            attachment=_either(attachment, caps.attachment),
            temperature=_either(config.temperature, caps.temperature),
            media_in_tool_results="all" if model_npm == ANTHROPIC_NPM else caps.media_in_tool_results,
        ),
        options={**(base.options if base else {}), **config.options},
        headers={**(base.headers if base else {}), **config.headers},
        cost=model_cost(config.extra.get("cost")) or (base.cost if base else None),
        family=str(config.extra.get("family") or (base.family if base else "")),
        release_date=str(config.extra.get("release_date") or (base.release_date if base else "")),
    )
    # A model only the config describes gets the variants OpenCode derives from its package and id.
    derived = base.variants if base else package_variants(info)
    return attrs.evolve(info, variants=configured_variants(derived, config.variants))


def open_model(spec: ProviderSpec, model_id: str) -> ModelInfo:
    """A model a local server may have although nobody declared it: OpenCode's defaults, limits unknown."""
    return ModelInfo(
        provider_id=spec.id,
        id=model_id,
        name=model_id,
        npm=spec.npm,
        capabilities=ModelCapabilities(temperature=False),
    )


def _either(value: T | None, default: T) -> T:
    return default if value is None else value
