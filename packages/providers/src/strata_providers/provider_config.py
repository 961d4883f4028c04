"""OpenCode's `provider.<id>` config, read into `ProviderSpec`s (merged over a built-in one when it exists).

Accepted as OpenCode writes it: `npm`, `name`, `env`, `options.baseURL`, `options.apiKey` (with `{env:VAR}`
already substituted by the config loader), `options.headers`, and `models.<id>` with `name`, `id` (the
provider's own model id), `limit {context, output, input}`, `tool_call`, `reasoning`, `attachment`,
`temperature`, `modalities`, `options`, `headers` and `provider.npm`.

Errors are `ValueError`s whose message starts with the path below `provider.<id>` (".models.x.limit: ...").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import attrs

from strata_core.llm import ModelCapabilities, ModelInfo, ModelLimits
from strata_providers.builtin import ANTHROPIC_NPM, COMPATIBLE_NPM, ProviderSpec

T = TypeVar("T")


def merge_provider_config(provider_id: str, data: object, base: ProviderSpec | None) -> ProviderSpec:
    """The provider `data` describes, over `base` (a built-in provider of the same id) when there is one."""
    config = _mapping(data, "")
    options = _mapping(config.get("options", {}), ".options")
    npm = _typed(config.get("npm"), str, ".npm") or (base.npm if base else COMPATIBLE_NPM)
    spec = base or ProviderSpec(provider_id, provider_id, npm, None, open_models=False)
    headers = {**spec.headers, **_string_map(options.get("headers", {}), ".options.headers")}
    models = dict(spec.models)
    for model_id, model_data in _mapping(config.get("models", {}), ".models").items():
        path = f".models.{model_id}"
        models[model_id] = config_model(
            provider_id, model_id, _mapping(model_data, path), models.get(model_id), npm, path
        )
    env = config.get("env")
    return attrs.evolve(
        spec,
        name=_typed(config.get("name"), str, ".name") or spec.name,
        npm=npm,
        base_url=_typed(options.get("baseURL"), str, ".options.baseURL") or spec.base_url,
        env=tuple(_string_list(env, ".env")) if env is not None else spec.env,
        api_key=_typed(options.get("apiKey"), str, ".options.apiKey") or spec.api_key,
        headers=headers,
        models=models,
    )


def config_model(
    provider_id: str, model_id: str, data: Mapping[str, Any], base: ModelInfo | None, npm: str, path: str
) -> ModelInfo:
    """A model from its config entry; unset fields keep the built-in model's values (or OpenCode's defaults:
    no temperature, no reasoning, no attachments, tool calls on, limits unknown)."""
    nested = _mapping(data.get("provider", {}), f"{path}.provider")
    model_npm = _typed(nested.get("npm"), str, f"{path}.provider.npm") or npm
    caps = base.capabilities if base else ModelCapabilities(temperature=False)
    limits = base.limits if base else ModelLimits()
    limit = _mapping(data.get("limit", {}), f"{path}.limit")
    modalities = _mapping(data.get("modalities", {}), f"{path}.modalities")
    inputs = _string_list(modalities.get("input", []), f"{path}.modalities.input")
    attachment = _flag(data, "attachment", path)
    if attachment is None and inputs:
        attachment = any(kind in inputs for kind in ("image", "pdf"))
    return ModelInfo(
        provider_id=provider_id,
        id=model_id,
        api_id=_typed(data.get("id"), str, f"{path}.id") or (base.api_id if base else ""),
        name=_typed(data.get("name"), str, f"{path}.name") or (base.name if base else model_id),
        npm=model_npm,
        limits=ModelLimits(
            context=_count(limit.get("context"), f"{path}.limit.context", limits.context),
            output=_count(limit.get("output"), f"{path}.limit.output", limits.output),
            input=_count(limit.get("input"), f"{path}.limit.input", limits.input),
        ),
        capabilities=ModelCapabilities(
            tool_call=_either(_flag(data, "tool_call", path), caps.tool_call),
            reasoning=_either(_flag(data, "reasoning", path), caps.reasoning),
            attachment=_either(attachment, caps.attachment),
            temperature=_either(_flag(data, "temperature", path), caps.temperature),
            media_in_tool_results="all" if model_npm == ANTHROPIC_NPM else caps.media_in_tool_results,
        ),
        options={**(base.options if base else {}), **_mapping(data.get("options", {}), f"{path}.options")},
        headers={**(base.headers if base else {}), **_string_map(data.get("headers", {}), f"{path}.headers")},
    )


def open_model(spec: ProviderSpec, model_id: str) -> ModelInfo:
    """A model a local server may have although nobody declared it: OpenCode's defaults, limits unknown."""
    return ModelInfo(
        provider_id=spec.id,
        id=model_id,
        name=model_id,
        npm=spec.npm,
        capabilities=ModelCapabilities(temperature=False),
    )


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an object, got {_kind(value)}")
    return value


def _typed(value: object, kind: type[T], path: str) -> T | None:
    if value is None or isinstance(value, kind):
        return value
    raise ValueError(f"{path}: expected a {kind.__name__}, got {_kind(value)}")


def _flag(data: Mapping[str, Any], key: str, path: str) -> bool | None:
    return _typed(data.get(key), bool, f"{path}.{key}")


def _either(value: bool | None, default: bool) -> bool:
    return default if value is None else value


def _count(value: object, path: str, default: Any) -> Any:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"{path}: expected a number of tokens, got {value!r}")
    return int(value)


def _string_map(value: object, path: str) -> dict[str, str]:
    mapping = _mapping(value, path)
    for key, item in mapping.items():
        if not isinstance(item, str):
            raise ValueError(f"{path}.{key}: expected a string, got {_kind(item)}")
    return dict(mapping)


def _string_list(value: object, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{path}: expected a list of strings, got {value!r}")
    return value


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__
