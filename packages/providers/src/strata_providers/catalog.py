"""The model catalogue: built-in providers merged with OpenCode's `provider` config, resolved to live models.

`ProviderCatalog` implements `strata_core.llm.ModelResolver`. It reads the already-loaded config
(`provider`, `model`, `small_model`, `enabled_providers`, `disabled_providers`) and the environment (API
keys), and does no I/O of its own: the HTTP client is looked up when a model is first called.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Mapping

import httpx

from strata_core.config.schema import ConfigBlocks
from strata_core.llm import LanguageModel, ModelInfo, ModelNotFoundError
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.builtin import BUILTIN_PROVIDERS, MESSAGES_WIRE_NPMS, PROVIDER_ALIASES, ProviderSpec
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.provider_config import merge_provider_config, open_model
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint

SMALL_MODEL_PRIORITY = (
    "claude-haiku-4-5",
    "claude-haiku-4.5",
    "3-5-haiku",
    "3.5-haiku",
    "gemini-3-flash",
    "gemini-2.5-flash",
    "gpt-5-nano",
)
"""Substrings that pick a provider's small model for titles, best first (OpenCode's list)."""

LOCAL_SERVER_SNIPPET = """{
  "provider": {
    "local": {
      "npm": "@ai-sdk/openai-compatible",
      "options": { "baseURL": "http://localhost:8080/v1" },
      "models": { "my-model": { "tool_call": true, "limit": { "context": 32768, "output": 8192 } } }
    }
  },
  "model": "local/my-model"
}"""


class ProviderCatalog:
    """Every provider and model Strata can call, and the `ModelResolver` the session loop asks."""

    def __init__(
        self,
        config: ConfigBlocks,
        env: Mapping[str, str],
        client: Callable[[], httpx.AsyncClient],
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._config = config
        self._env = env
        self._client = client
        self._retry = retry or RetryPolicy()
        self._providers: dict[str, ProviderSpec] | None = None

    # -- ModelResolver -----------------------------------------------------------------------------------

    def resolve(self, ref: str) -> LanguageModel:
        """The model for `provider/model` (split at the first `/`), ready to call."""
        info = self.model_info(ref)
        return self._language_model(self.providers[info.provider_id], info)

    def default_model(self) -> LanguageModel:
        if self._config.model:
            return self.resolve(self._config.model)
        for spec in self._usable_providers():
            first = next(iter(spec.models), None)
            if first is not None:
                return self.resolve(f"{spec.id}/{first}")
        raise ModelNotFoundError(
            'No model is configured. Set "model": "provider/model" in strata.json or opencode.json '
            '(for example "anthropic/claude-sonnet-4-5") and the provider\'s API key in the environment '
            f"({', '.join(_key_names())}), or describe a local OpenAI-compatible server:\n{LOCAL_SERVER_SNIPPET}"
        )

    def small_model(self, provider_id: str) -> LanguageModel | None:
        if self._config.small_model:
            return self.resolve(self._config.small_model)
        spec = self.providers.get(PROVIDER_ALIASES.get(provider_id, provider_id))
        if spec is None:
            return None
        for wanted in SMALL_MODEL_PRIORITY:
            for model_id in spec.models:
                if wanted in model_id:
                    try:
                        return self.resolve(f"{spec.id}/{model_id}")
                    except ModelNotFoundError:
                        return None
        return None

    # -- looking things up -------------------------------------------------------------------------------

    @property
    def providers(self) -> Mapping[str, ProviderSpec]:
        """Built-in providers merged with the config's, disabled ones left out."""
        if self._providers is None:
            self._providers = self._load_providers()
        return self._providers

    def connected_providers(self) -> list[ProviderSpec]:
        """The providers a turn can use now: configured ones, then built-ins whose key is set."""
        return list(self._usable_providers())

    def model_info(self, ref: str) -> ModelInfo:
        """What is known about `provider/model`; raises `ModelNotFoundError` saying how to fix the ref."""
        provider_id, sep, model_id = ref.partition("/")
        if not sep or not provider_id or not model_id:
            raise ModelNotFoundError(
                f'"{ref}" is not a model reference: write it as provider/model, e.g. "anthropic/claude-sonnet-4-5"'
            )
        spec = self.providers.get(PROVIDER_ALIASES.get(provider_id, provider_id))
        if spec is None:
            raise ModelNotFoundError(self._unknown_provider(provider_id, model_id))
        info = spec.models.get(model_id)
        if info is None and spec.open_models:
            info = open_model(spec, model_id)
        if info is None:
            raise ModelNotFoundError(self._unknown_model(spec, model_id))
        return info

    def api_key(self, spec: ProviderSpec) -> str | None:
        """The provider's key: `options.apiKey` from config, else the first of its env variables that is set."""
        return spec.api_key or next((self._env[name] for name in spec.env if self._env.get(name)), None)

    def key_variables(self) -> frozenset[str]:
        """The environment variables that hold API keys this catalogue may send, for shells to leave out.

        Every built-in provider's key variables (disabled or not), each configured provider's `env`, and any
        variable whose value is a configured `options.apiKey` (a `{env:VAR}` key arrives already substituted).
        """
        names = {name for spec in BUILTIN_PROVIDERS.values() for name in spec.env}
        specs = list(self.providers.values())
        keys = {spec.api_key for spec in specs if spec.api_key}
        names.update(name for spec in specs for name in spec.env)
        names.update(name for name, value in self._env.items() if value in keys)
        return frozenset(names)

    def models(self) -> Iterator[ModelInfo]:
        """Every known model of every enabled provider (open providers: their listed models only)."""
        for spec in self.providers.values():
            yield from spec.models.values()

    # -- internals ---------------------------------------------------------------------------------------

    def _load_providers(self) -> dict[str, ProviderSpec]:
        providers = dict(BUILTIN_PROVIDERS)
        for raw_id, config in self._config.provider.items():
            provider_id = PROVIDER_ALIASES.get(raw_id, raw_id)
            providers[provider_id] = merge_provider_config(provider_id, config, providers.get(provider_id))
        enabled = self._config.enabled_providers
        disabled = set(self._config.disabled_providers)
        return {pid: spec for pid, spec in providers.items() if pid not in disabled and (not enabled or pid in enabled)}

    def _usable_providers(self) -> Iterator[ProviderSpec]:
        """Providers a default model can come from: configured ones first, then built-ins with a key."""
        configured = self._config.provider
        for spec in self.providers.values():
            if spec.id in configured and spec.id not in BUILTIN_PROVIDERS:
                yield spec
        for spec in self.providers.values():
            if spec.id in BUILTIN_PROVIDERS and spec.needs_key and self.api_key(spec):
                yield spec

    def _language_model(self, spec: ProviderSpec, info: ModelInfo) -> LanguageModel:
        api_key = self.api_key(spec)
        if spec.needs_key and not api_key:
            raise ModelNotFoundError(_missing_key(spec, info))
        if not spec.base_url:
            raise ModelNotFoundError(
                f'Provider "{spec.id}" has no base URL: set provider.{spec.id}.options.baseURL in strata.json or '
                f'opencode.json, e.g. "http://localhost:8080/v1".'
            )
        endpoint = Endpoint(spec.base_url, api_key, spec.headers, spec.deadlines)
        if info.npm in MESSAGES_WIRE_NPMS:
            return AnthropicMessagesModel(info, endpoint, self._client, self._retry)
        return OpenAIChatModel(info, endpoint, self._client, self._retry)

    def _unknown_provider(self, provider_id: str, model_id: str) -> str:
        known = sorted(self.providers)
        hint = _did_you_mean(provider_id, known)
        snippet = LOCAL_SERVER_SNIPPET.replace('"local"', json.dumps(provider_id)).replace("my-model", model_id)
        snippet = snippet.replace('"local/', f'"{provider_id}/')
        return (
            f'Unknown provider "{provider_id}" in "{provider_id}/{model_id}".{hint} Known providers: '
            f"{', '.join(known)}.\nFor an OpenAI-compatible server of your own, add it to strata.json "
            f"(or opencode.json):\n{snippet}"
        )

    def _unknown_model(self, spec: ProviderSpec, model_id: str) -> str:
        known = list(spec.models)
        hint = _did_you_mean(model_id, known)
        entry = {
            "provider": {
                spec.id: {"models": {model_id: {"tool_call": True, "limit": {"context": 128000, "output": 16384}}}}
            }
        }
        return (
            f'Unknown model "{model_id}" for provider "{spec.id}".{hint} Known models: {", ".join(known) or "none"}.\n'
            f"To use it anyway, declare it in strata.json (or opencode.json):\n{json.dumps(entry, indent=2)}"
        )


def _missing_key(spec: ProviderSpec, info: ModelInfo) -> str:
    names = " or ".join(spec.env)
    entry = {"provider": {spec.id: {"options": {"apiKey": "{env:MY_" + spec.id.upper() + "_KEY}"}}}}
    return (
        f"Model {info.ref} needs an API key: set {names} in the environment, or give "
        f"provider.{spec.id}.options.apiKey in strata.json (or opencode.json):\n{json.dumps(entry, indent=2)}"
    )


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=3, cutoff=0.5)
    lowered = [c for c in candidates if word.lower() in c.lower() and c not in close]
    suggestions = close + lowered[: max(0, 3 - len(close))]
    return f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""


def _key_names() -> list[str]:
    return [*[spec.env[0] for spec in BUILTIN_PROVIDERS.values() if spec.env][:4], "..."]
