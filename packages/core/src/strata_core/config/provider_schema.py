"""The `provider` block, typed: OpenCode's `provider.<id>` (models.dev's provider and model shapes, partial).

`strata_providers.provider_config` merges these over its built-in providers; here is only their shape.
Unset fields are None so a configured model can keep a built-in model's values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from attrs import frozen

from strata_core.config import checks as c
from strata_core.config.checks import block, blocks, setting


@frozen
class ModelLimitConfig:
    """`limit`: token limits; None keeps the built-in model's (or unknown)."""

    context: int | None = setting(c.tokens())
    output: int | None = setting(c.tokens())
    input: int | None = setting(c.tokens())


@frozen
class ModalitiesConfig:
    input: tuple[str, ...] = setting(c.strings(), factory=tuple)
    output: tuple[str, ...] = setting(c.strings(), factory=tuple)


@frozen
class ModelProviderConfig:
    """A model's own `provider {npm}`: a model served through another wire than its provider's."""

    npm: str | None = setting(c.string("an npm package name"))


@frozen
class ModelConfig:
    """`provider.<id>.models.<id>`."""

    id: str | None = setting(c.string("the provider's own model id"))
    name: str | None = setting(c.string())
    limit: ModelLimitConfig = block(ModelLimitConfig)
    tool_call: bool | None = setting(c.boolean())
    reasoning: bool | None = setting(c.boolean())
    attachment: bool | None = setting(c.boolean())
    temperature: bool | None = setting(c.boolean())
    modalities: ModalitiesConfig | None = block(ModalitiesConfig, optional=True)
    options: Mapping[str, Any] = setting(c.json_object(), factory=dict)
    headers: Mapping[str, str] = setting(c.string_map(), factory=dict)
    provider: ModelProviderConfig = block(ModelProviderConfig)
    variants: Mapping[str, Any] = setting(c.json_object(), factory=dict)
    extra: Mapping[str, Any] = setting(c.json_object(), factory=dict)
    """models.dev keys Strata does not read (`cost`, `release_date`, ...), as written."""


_MILLISECONDS = c.either(c.exactly(False, "false"), c.whole("", minimum=1), expected="milliseconds, or false for none")


@frozen
class ProviderOptions:
    """`provider.<id>.options`: where and how to call the provider; the rest stays in `extra`."""

    api_key: str | None = setting(c.string(), json="apiKey")
    base_url: str | None = setting(c.string("a URL"), json="baseURL")
    headers: Mapping[str, str] = setting(c.string_map(), factory=dict)
    timeout: int | Literal[False] | None = setting(_MILLISECONDS)
    """The whole request, in ms (OpenCode's key; no limit by default)."""
    chunk_timeout: int | Literal[False] | None = setting(_MILLISECONDS, json="chunkTimeout")
    """Between two pieces of a stream's output, in ms."""
    header_timeout: int | Literal[False] | None = setting(_MILLISECONDS, json="headerTimeout")
    """Until the response headers arrive, in ms."""
    extra: Mapping[str, Any] = setting(c.json_object(), factory=dict)


@frozen
class ProviderConfig:
    """`provider.<id>`: a provider of its own, or changes to a built-in one."""

    name: str | None = setting(c.string())
    npm: str | None = setting(c.string("an npm package name"))
    env: tuple[str, ...] | None = setting(c.strings("a list of environment variable names"))
    options: ProviderOptions = block(ProviderOptions)
    models: Mapping[str, ModelConfig] = blocks(ModelConfig, "an object of models")
    whitelist: tuple[str, ...] | None = setting(c.strings("a list of model ids"))
    blacklist: tuple[str, ...] | None = setting(c.strings("a list of model ids"))
    extra: Mapping[str, Any] = setting(c.json_object(), factory=dict)
