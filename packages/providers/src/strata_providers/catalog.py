"""The model catalogue: models.dev's providers merged with OpenCode's `provider` config, resolved to live models.

`ProviderCatalog` implements `strata_core.llm.ModelResolver`. It reads the already-loaded config (`provider`,
`model`, `small_model`, `enabled_providers`, `disabled_providers`), the environment (API keys), the stored
credentials (`auth.json`, the key of last resort, read only when needed) and models.dev's
data (`models_dev`), merged as OpenCode merges them: config wins field by field, `whitelist`/`blacklist` filter
a provider's models, disabled providers are gone. Providers are built one at a time, when first asked for, so
a run on a provider of the user's own never parses models.dev's file; the HTTP client is looked up only when
a model is first called. The local servers Strata knows (Ollama, LM Studio, vLLM, llama.cpp) are probed only
when nothing is configured (`default_model`) or models are listed (`models`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import httpx

from strata_core.config import ConfigBlocks, StrataPaths
from strata_core.llm import LanguageModel, ModelInfo, ModelNotFoundError
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.local_servers import LocalServer, local_servers, local_spec, probe_now
from strata_providers.models_dev import ModelsDev
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.provider_config import merge_provider_config, open_model
from strata_providers.provider_spec import MESSAGES_WIRE_NPMS, ProviderSpec, spec_from_models_dev
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint

if TYPE_CHECKING:
    from strata_core.config import CredentialStore

SMALL_MODEL_FAMILIES = ("gemini-flash", "gpt-nano", "claude-haiku")
"""models.dev families a provider's small model (for titles) is taken from, best first (OpenCode 1.18)."""
DEFAULT_MODEL_PRIORITY = ("gpt-5", "claude-sonnet-4", "big-pickle", "gemini-3-pro")
"""Model ids a provider's default model is preferred from when no `model` is configured (OpenCode's order)."""
PROVIDER_ALIASES = {"together": "togetherai", "moonshot": "moonshotai", "kimi": "moonshotai", "gemini": "google"}
"""Other names the same providers go by (shorthands, and the ids Strata used before models.dev's)."""

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
        models_dev: ModelsDev | None = None,
        servers: tuple[LocalServer, ...] | None = None,
        credentials: CredentialStore | None = None,
    ) -> None:
        self._config = config
        self._env = env
        self._credentials = credentials
        self._client = client
        self._retry = retry or RetryPolicy()
        self._models_dev = models_dev
        self._servers = local_servers(env) if servers is None else servers
        self._specs: dict[str, ProviderSpec | None] = {}
        self._probed: dict[str, list[str]] | None = None
        self.notice: str | None = None
        """Set when the default model came from a local server nobody configured: how to pin it."""

    # -- ModelResolver -----------------------------------------------------------------------------------

    def resolve(self, ref: str) -> LanguageModel:
        """The model for `provider/model` (split at the first `/`), ready to call."""
        info = self.model_info(ref)
        spec = self.provider(info.provider_id)
        assert spec is not None  # model_info found the model there
        return self._language_model(spec, info)

    def default_model(self) -> LanguageModel:
        if self._config.model:
            return self.resolve(self._config.model)
        for spec in self._connected():
            ranked = sorted(spec.models.values(), key=lambda info: info.id, reverse=True)
            ranked.sort(key=lambda info: "latest" not in info.id)
            ranked.sort(key=_default_rank, reverse=True)
            if ranked:
                return self.resolve(ranked[0].ref)
        served = self._probe()
        for server in self._servers:
            if served.get(server.id):
                ref = f"{server.id}/{served[server.id][0]}"
                self.notice = (f'No model is configured: using {ref} from the {server.name} server at '
                               f'{server.base_url}. To keep it, set "model": "{ref}" in strata.json.')  # fmt: skip
                return self.resolve(ref)
        raise ModelNotFoundError(
            'No model is configured. Set "model": "provider/model" in strata.json or opencode.json '
            '(for example "anthropic/claude-sonnet-4-5") and the provider\'s API key in the environment '
            "(ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, ...), start a local server (Ollama, LM Studio, "
            f"vLLM or llama.cpp on its default port), or describe an OpenAI-compatible server:\n{LOCAL_SERVER_SNIPPET}"
        )

    def small_model(self, provider_id: str) -> LanguageModel | None:
        """`small_model` config, else the provider's newest model of the first small family it has (OpenCode)."""
        if self._config.small_model:
            try:
                return self.resolve(self._config.small_model)
            except ModelNotFoundError:
                return None
        spec = self.provider(provider_id)
        if spec is None:
            return None
        families = ("gpt-nano",) if spec.id.startswith("opencode") else SMALL_MODEL_FAMILIES
        newest = sorted(spec.models.values(), key=lambda info: (info.release_date, info.id), reverse=True)
        for family in families:
            for info in newest:
                if info.family == family:
                    try:
                        return self._language_model(spec, info)
                    except ModelNotFoundError:
                        return None
        return None

    # -- looking things up -------------------------------------------------------------------------------

    @property
    def models_dev(self) -> ModelsDev:
        if self._models_dev is None:
            self._models_dev = ModelsDev.default(StrataPaths.from_env(self._env).cache)
        return self._models_dev

    def provider(self, provider_id: str) -> ProviderSpec | None:
        """One provider, built on first use (models.dev's entry, the config over it); None if unknown or disabled."""
        provider_id = self._canonical(provider_id)
        if provider_id not in self._specs:
            self._specs[provider_id] = self._build(provider_id)
        return self._specs[provider_id]

    @property
    def providers(self) -> Mapping[str, ProviderSpec]:
        """Every enabled provider: models.dev's, the config's and the local servers' (this reads all of models.dev)."""
        ids = [*self.models_dev.index(), *self._config.provider, *(server.id for server in self._servers)]
        found = {pid: spec for pid in dict.fromkeys(ids) if (spec := self.provider(pid)) is not None}
        return found

    def connected_providers(self) -> list[ProviderSpec]:
        """The providers a turn can use now: configured ones, then catalogue ones whose key is set, then local
        servers that answered a probe already made (none is made here)."""
        found = {spec.id: spec for spec in self._connected()}
        for provider_id in self._probed or {}:
            spec = self.provider(provider_id)
            if spec is not None:
                found.setdefault(provider_id, spec)
        return list(found.values())

    def model_info(self, ref: str) -> ModelInfo:
        """What is known about `provider/model`; raises `ModelNotFoundError` saying how to fix the ref."""
        provider_id, sep, model_id = ref.partition("/")
        if not sep or not provider_id or not model_id:
            raise ModelNotFoundError(
                f'"{ref}" is not a model reference: write it as provider/model, e.g. "anthropic/claude-sonnet-4-5"'
            )
        spec = self.provider(provider_id)
        if spec is None:
            raise ModelNotFoundError(self._unknown_provider(provider_id, model_id))
        info = spec.models.get(model_id)
        if info is None and spec.open_models:
            info = open_model(spec, model_id)
        if info is None:
            raise ModelNotFoundError(self._unknown_model(spec, model_id))
        return info

    @property
    def credentials(self) -> CredentialStore:
        """The stored credentials (`$XDG_DATA_HOME/strata/auth.json` over OpenCode's), opened on first use so a
        run whose key is in the environment or config never imports or reads them."""
        if self._credentials is None:
            from strata_core.config import CredentialStore

            self._credentials = CredentialStore.from_paths(StrataPaths.from_env(self._env))
        return self._credentials

    def api_key(self, spec: ProviderSpec) -> str | None:
        """The provider's key: `options.apiKey` from config, else the first of its env variables that is set,
        else the key of its stored `api` credential (read afresh when the file changed)."""
        from_env = next((self._env[name] for name in spec.env if self._env.get(name)), None)
        return spec.api_key or from_env or self.credentials.api_key(spec.id)

    def is_usable(self, spec: ProviderSpec) -> bool:
        """Whether a call could be made now: the config describes it, a key is at hand or none is needed, or it
        is a local server that answered the probe."""
        return self.unusable_reason(spec) is None

    def unusable_reason(self, spec: ProviderSpec) -> str | None:
        """Why no call to `spec` could be made now (what `strata models --all` says), or None if one could."""
        if spec.source == "local" and spec.id not in self._config.provider:
            if spec.id in (self._probed or {}):
                return None
            return f"no server answered at {spec.base_url} (start it, or configure provider.{spec.id})"
        if spec.source != "models.dev" or not spec.needs_key or self.api_key(spec) is not None:
            return None
        return f"no key: set {' or '.join(spec.env)}"

    def key_variables(self) -> frozenset[str]:
        """The environment variables that hold API keys this catalogue may send, for shells to leave out.

        Every models.dev provider's key variables (disabled or not, read from the small index), each configured
        provider's `env`, and any variable whose value is a configured `options.apiKey` (a `{env:VAR}` key
        arrives already substituted).
        """
        names = {name for entry in self.models_dev.index().values() for name in entry.env}
        configs = self._config.provider.values()
        names.update(name for config in configs for name in config.env or ())
        keys = {config.options.api_key for config in configs if config.options.api_key}
        names.update(name for name, value in self._env.items() if value in keys)
        return frozenset(names)

    def models(self, *, include_unusable: bool = False) -> Iterator[ModelInfo]:
        """The models to list (`strata models`, the model picker, the server): those of usable providers, and
        what local servers that answered serve; with `include_unusable`, every model of every enabled provider."""
        self._probe()
        configured_first = sorted(self.providers.values(), key=lambda spec: spec.id not in self._config.provider)
        for spec in configured_first:
            if include_unusable or self.is_usable(spec):
                yield from spec.models.values()

    # -- internals ---------------------------------------------------------------------------------------

    def _canonical(self, provider_id: str) -> str:
        if provider_id in self._config.provider:
            return provider_id
        alias = PROVIDER_ALIASES.get(provider_id)
        return alias if alias is not None and alias not in self._config.provider else provider_id

    def _build(self, provider_id: str) -> ProviderSpec | None:
        enabled = self._config.enabled_providers
        if provider_id in self._config.disabled_providers or (enabled and provider_id not in enabled):
            return None
        spec: ProviderSpec | None = None
        entry = self.models_dev.index().get(provider_id)
        if entry is not None:
            raw = self.models_dev.provider(provider_id)
            spec = spec_from_models_dev(entry, raw) if raw is not None else None
        server = next((server for server in self._servers if server.id == provider_id), None)
        if server is not None:
            spec = local_spec(server, (self._probed or {}).get(provider_id, ()), spec)
        config = self._config.provider.get(provider_id)
        if config is not None:
            spec = merge_provider_config(provider_id, config, spec)
        if spec is not None and not spec.models and not spec.open_models and spec.source == "models.dev":
            return None  # OpenCode drops a provider whose every model was filtered out
        return spec

    def _connected(self) -> Iterator[ProviderSpec]:
        """Providers a default model can come from: configured ones first, then models.dev's with a key set."""
        for provider_id in self._config.provider:
            spec = self.provider(provider_id)
            if spec is not None and spec.models:
                yield spec
        for provider_id, entry in self.models_dev.index().items():
            if provider_id in self._config.provider:
                continue
            if any(self._env.get(name) for name in entry.env) or self.credentials.api_key(provider_id):
                spec = self.provider(provider_id)
                if spec is not None:
                    yield spec

    def _probe(self) -> dict[str, list[str]]:
        """Ask the local servers what they serve (once); their providers are rebuilt with those models."""
        if self._probed is None:
            self._probed = probe_now(self._servers) if self._servers else {}
            for provider_id in self._probed:
                self._specs.pop(provider_id, None)
        return self._probed

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
        known = sorted({*self.models_dev.index(), *self._config.provider, *(s.id for s in self._servers)})
        hint = _did_you_mean(provider_id, known)
        snippet = LOCAL_SERVER_SNIPPET.replace('"local"', json.dumps(provider_id)).replace("my-model", model_id)
        snippet = snippet.replace('"local/', f'"{provider_id}/')
        return (
            f'Unknown provider "{provider_id}" in "{provider_id}/{model_id}".{hint} `strata models --all` lists '
            f"the models of all {len(known)} known providers.\nFor an OpenAI-compatible server of your own, add it "
            f"to strata.json (or opencode.json):\n{snippet}"
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
            f'Unknown model "{model_id}" for provider "{spec.id}".{hint} Known models: {_some(known)}.\n'
            f"To use it anyway, declare it in strata.json (or opencode.json):\n{json.dumps(entry, indent=2)}"
        )


def _missing_key(spec: ProviderSpec, info: ModelInfo) -> str:
    names = " or ".join(spec.env)
    entry = {"provider": {spec.id: {"options": {"apiKey": "{env:MY_" + spec.id.upper() + "_KEY}"}}}}
    return (
        f"Model {info.ref} needs an API key: set {names} in the environment, or give "
        f"provider.{spec.id}.options.apiKey in strata.json (or opencode.json):\n{json.dumps(entry, indent=2)}"
    )


def _some(names: list[str], shown: int = 20) -> str:
    if len(names) <= shown:
        return ", ".join(names) or "none"
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word, candidates, n=3, cutoff=0.5)
    lowered = [c for c in candidates if word.lower() in c.lower() and c not in close]
    suggestions = close + lowered[: max(0, 3 - len(close))]
    return f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""


def _default_rank(info: ModelInfo) -> int:
    return next((rank for rank, mark in enumerate(DEFAULT_MODEL_PRIORITY) if mark in info.id), -1)
