"""A provider as the catalogue holds it (`ProviderSpec`), and how a models.dev entry becomes one.

models.dev gives each provider its key variables, SDK package and (for OpenAI-compatible ones) its URL, and each
model its limits, capabilities, prices and reasoning options. Converted as OpenCode converts them: temperature,
reasoning and attachments off unless stated, tool calls on unless stated, `deprecated` (and `alpha`) models
left out. Packages whose SDK carries its own URL get that URL here, since models.dev does not repeat it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from attrs import field, frozen

from strata_core.llm import ModelCapabilities, ModelInfo, ModelLimits, model_cost
from strata_providers.deadlines import Deadlines
from strata_providers.models_dev import ProviderEntry
from strata_providers.variants import catalog_variants

ANTHROPIC_NPM = "@ai-sdk/anthropic"
COMPATIBLE_NPM = "@ai-sdk/openai-compatible"
OPENROUTER_NPM = "@openrouter/ai-sdk-provider"
MESSAGES_WIRE_NPMS = frozenset({ANTHROPIC_NPM, "@ai-sdk/google-vertex/anthropic"})
"""SDK packages whose models speak Anthropic Messages; every other package is served by chat completions."""

SDK_BASE_URLS = {
    ANTHROPIC_NPM: "https://api.anthropic.com/v1",
    "@ai-sdk/openai": "https://api.openai.com/v1",
    "@ai-sdk/google": "https://generativelanguage.googleapis.com/v1beta/openai",
    "@ai-sdk/groq": "https://api.groq.com/openai/v1",
    "@ai-sdk/mistral": "https://api.mistral.ai/v1",
    "@ai-sdk/xai": "https://api.x.ai/v1",
    "@ai-sdk/togetherai": "https://api.together.xyz/v1",
    "@ai-sdk/deepinfra": "https://api.deepinfra.com/v1/openai",
    "@ai-sdk/cerebras": "https://api.cerebras.ai/v1",
    "@ai-sdk/perplexity": "https://api.perplexity.ai",
    OPENROUTER_NPM: "https://openrouter.ai/api/v1",
}
"""Where each SDK package sends requests by default (Google through its chat-completions endpoint, the one wire
of Strata's it speaks)."""

Source = Literal["models.dev", "config", "local"]

HIDDEN_MODELS = {
    "openai": ("gpt-5-chat-latest",),
    "github-copilot": ("gpt-5-chat-latest",),
    "openrouter": ("gpt-5-chat-latest", "openai/gpt-5-chat"),
}
"""Models OpenCode leaves out of these providers although models.dev lists them."""


@frozen
class ProviderSpec:
    """A provider: where it lives, which key it needs, how it speaks, and the models it offers."""

    id: str
    name: str
    npm: str
    base_url: str | None
    env: tuple[str, ...] = ()
    """Environment variables that may hold the API key (first set wins); empty when none is needed."""
    models: Mapping[str, ModelInfo] = field(factory=dict)
    open_models: bool = False
    """A local server: any model id is accepted, since its models are whatever the user loaded."""
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(factory=dict, repr=False)
    deadlines: Deadlines = field(factory=Deadlines)
    source: Source = "models.dev"
    """Where the provider comes from: the catalogue, only the user's config, or a local server Strata knows."""

    @property
    def needs_key(self) -> bool:
        return bool(self.env) and self.source != "local"


def spec_from_models_dev(entry: ProviderEntry, raw: Mapping[str, Any]) -> ProviderSpec:
    hidden = HIDDEN_MODELS.get(entry.id, ())
    models = {
        model_id: info
        for model_id, model in (raw.get("models") or {}).items()
        if isinstance(model, Mapping) and model.get("status") not in ("deprecated", "alpha") and model_id not in hidden
        if (info := model_from_models_dev(entry, model_id, model)) is not None
    }
    base_url = entry.api or SDK_BASE_URLS.get(entry.npm)
    return ProviderSpec(entry.id, entry.name, entry.npm, base_url, entry.env, models)


def model_from_models_dev(entry: ProviderEntry, model_id: str, raw: Mapping[str, Any]) -> ModelInfo | None:
    """One models.dev model as `ModelInfo`; None for one without the limits every model must state."""
    limit = raw.get("limit")
    if not isinstance(limit, Mapping):
        return None
    own = raw.get("provider")
    npm = str((own.get("npm") if isinstance(own, Mapping) else None) or entry.npm)
    api_id = str(raw.get("id") or model_id)
    output = _int(limit.get("output"))
    reasoning = bool(raw.get("reasoning", False))
    return ModelInfo(
        provider_id=entry.id,
        id=model_id,
        api_id=api_id if api_id != model_id else "",
        name=str(raw.get("name") or model_id),
        npm=npm,
        limits=ModelLimits(context=_int(limit.get("context")), output=output, input=_int(limit.get("input")) or None),
        capabilities=ModelCapabilities(
            tool_call=bool(raw.get("tool_call", True)),
            reasoning=reasoning,
            attachment=bool(raw.get("attachment", False)),
            temperature=bool(raw.get("temperature", False)),
            media_in_tool_results="all" if npm in MESSAGES_WIRE_NPMS else "none",
            interleaved=_interleaved_field(raw.get("interleaved")),
        ),
        cost=model_cost(raw.get("cost")),
        variants=catalog_variants(npm, model_id, api_id, output, reasoning, raw.get("reasoning_options")),
        family=str(raw.get("family") or ""),
        release_date=str(raw.get("release_date") or ""),
    )


def _interleaved_field(value: object) -> str | None:
    """models.dev's `interleaved`: a field name, or {field}; a bare `true` names none, so nothing is sent."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("field"), str):
        return str(value["field"])
    return None


def _int(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
