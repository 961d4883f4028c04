"""Request parameters OpenCode derives from the model: sampling defaults, output budget, provider options.

Pure functions (reference section 7), and `ProviderParameters`, the core's `ParameterPolicy` built from
them. Provider options come back as request-body fields in the wire's own names (`reasoning_effort`,
`thinking`, ...), which is what the wires merge into the body as given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from attrs import frozen

from strata_core.config import merge_deep
from strata_core.context import AgentInfo
from strata_core.engine import OUTPUT_TOKEN_MAX, CallParameters
from strata_core.engine import max_output_tokens as _capped_output
from strata_core.llm import ModelInfo


@frozen
class RequestParameters:
    temperature: float | None
    top_p: float | None
    max_output_tokens: int


def request_parameters(
    model: ModelInfo,
    agent_temperature: float | None = None,
    agent_top_p: float | None = None,
    *,
    output_token_max: int = OUTPUT_TOKEN_MAX,
) -> RequestParameters:
    """Temperature, top-p and output budget for a call, the agent's settings winning over model defaults.

    A model that does not declare temperature support gets none at all, not even the agent's: OpenCode's
    rule, which keeps config-defined models (temperature off unless declared) from being sent one.
    """
    temperature = None
    if model.capabilities.temperature:
        temperature = agent_temperature if agent_temperature is not None else default_temperature(model.api_model_id)
    top_p = agent_top_p if agent_top_p is not None else default_top_p(model.api_model_id, model.provider_id)
    return RequestParameters(temperature, top_p, max_output_tokens(model, output_token_max))


def max_output_tokens(model: ModelInfo, output_token_max: int = OUTPUT_TOKEN_MAX) -> int:
    """`min(limit.output, 32000)`, or 32000 when the model's output limit is unknown."""
    return _capped_output(model.limits, output_token_max)


@frozen
class ProviderParameters:
    """The core's `ParameterPolicy` with OpenCode's rules: what the application plugs into the loop."""

    output_token_max: int = OUTPUT_TOKEN_MAX

    def call_parameters(
        self,
        model: ModelInfo,
        agent: AgentInfo,
        *,
        session_id: str | None,
        small: bool = False,
        variant: str | None = None,
    ) -> CallParameters:
        params = request_parameters(model, agent.temperature, agent.top_p, output_token_max=self.output_token_max)
        options = provider_options(
            model, session_id=session_id, small=small, agent_options=agent.options, variant=variant
        )
        return CallParameters(params.temperature, params.top_p, params.max_output_tokens, options)


def default_temperature(model_id: str) -> float | None:
    """The temperature a model family is tuned for (OpenCode 1.18's table), or None to leave it to the provider."""
    id_ = model_id.lower()
    if "north-mini-code" in id_:
        return 1.0
    if "claude" in id_:
        return None
    if "gemini" in id_:
        return 1.0 if _tuned_gemini(id_) else None
    if any(family in id_ for family in ("glm-4.6", "glm-4.7", "minimax-m2")):
        return 1.0
    if "kimi-k2" in id_:
        return 1.0 if any(mark in id_ for mark in ("thinking", "k2.", "k2p", "k2-5")) else 0.6
    return None


def default_top_p(model_id: str, provider_id: str = "") -> float | None:
    id_ = model_id.lower()
    if "gemini" in id_:
        return 0.95 if _tuned_gemini(id_) else None
    if any(family in id_ for family in ("minimax-m2", "kimi-k2.5", "kimi-k2p5", "kimi-k2-5")):
        return 0.95
    if "deepseek-v4-flash-0731" in id_ or "deepseek-v4-flash:0731" in id_:
        return 0.95
    if "deepseek-v4-flash" in id_ and (provider_id == "deepseek" or provider_id.startswith("opencode")):
        return 0.95
    return None


_TUNED_GEMINI = tuple(
    re.compile(pattern)
    for pattern in (
        r"gemini-2[.-]5(?:[.-]|$)",
        r"gemini-3-(?:flash|pro)(?:[.-]|$)",
        r"gemini-3[.-]1(?:[.-]|$)",
        r"gemini-3[.-]5-flash(?!-lite)(?:[.-]|$)",
    )
)


def _tuned_gemini(model_id: str) -> bool:
    """The Gemini releases OpenCode gives sampling defaults (2.5, 3 Flash/Pro, 3.1, 3.5 Flash)."""
    return any(pattern.search(model_id) for pattern in _TUNED_GEMINI)


def provider_options(
    model: ModelInfo,
    *,
    session_id: str | None = None,
    small: bool = False,
    agent_options: Mapping[str, Any] | None = None,
    variant: str | None = None,
) -> dict[str, Any]:
    """Extra body fields for a call: per-provider defaults, then the model's, the agent's and the variant's options.

    `options` are written as in OpenCode's config (AI SDK names such as `reasoningEffort`); they are renamed
    to the wire's fields here, and unknown keys pass through unchanged. A variant applies to full calls only:
    small calls run with the model's first variant instead, as OpenCode's do.
    """
    base = _small_options(model) if small else _call_options(model, session_id)
    merged = merge_deep(merge_deep(base, _wire_fields(model, model.options)), _wire_fields(model, agent_options))
    if not small and variant is not None and variant in model.variants:
        merged = merge_deep(merged, _wire_fields(model, model.variants[variant]))
    return merged


def _call_options(model: ModelInfo, session_id: str | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    api_id = model.api_model_id
    npm = model.npm
    if model.provider_id == "openai" or npm in ("@ai-sdk/openai", "@ai-sdk/xai"):
        options["store"] = False
    if npm == OPENROUTER_NPM:
        options["usage"] = {"include": True}
    if session_id and npm in _CACHE_KEY_NPMS:
        options["prompt_cache_key"] = session_id
    if "gpt-5" in api_id and "gpt-5-chat" not in api_id:
        if "codex" not in api_id and "gpt-5-pro" not in api_id:
            options["reasoning_effort"] = "medium"
        if "gpt-5." in api_id and "codex" not in api_id and "-chat" not in api_id:
            options["verbosity"] = "low"
    return options


def _small_options(model: ModelInfo) -> dict[str, Any]:
    """Small calls (titles) run with the model's first variant (OpenCode's choice of its cheapest setting)."""
    first = _wire_fields(model, next(iter(model.variants.values()), None))
    if model.provider_id == "openai" or model.npm in ("@ai-sdk/openai", "@ai-sdk/xai"):
        return merge_deep({"store": False}, first)
    if model.provider_id == "openrouter" and not first and "google" in model.api_model_id:
        return {"reasoning": {"enabled": False}}
    return first


OPENROUTER_NPM = "@openrouter/ai-sdk-provider"
_CACHE_KEY_NPMS = frozenset({"@ai-sdk/deepinfra", "@ai-sdk/cerebras", "@ai-sdk/openai", "@ai-sdk/azure", "@ai-sdk/xai",
                             "@ai-sdk/mistral", "venice-ai-sdk-provider"})  # fmt: skip
"""Packages OpenCode gives the session id as a prompt-cache key."""
# Responses-API settings that chat completions has no field for.
_RESPONSES_ONLY = frozenset({"reasoningSummary", "include"})

_CHAT_NAMES = {
    "reasoningEffort": "reasoning_effort",
    "textVerbosity": "verbosity",
    "promptCacheKey": "prompt_cache_key",
    "parallelToolCalls": "parallel_tool_calls",
    "maxCompletionTokens": "max_completion_tokens",
    "serviceTier": "service_tier",
}


def _wire_fields(model: ModelInfo, options: Mapping[str, Any] | None) -> dict[str, Any]:
    if not options:
        return {}
    if model.npm != "@ai-sdk/anthropic":
        return {_CHAT_NAMES.get(key, key): value for key, value in options.items() if key not in _RESPONSES_ONLY}
    fields: dict[str, Any] = {}
    for key, value in options.items():
        if key == "thinking" and isinstance(value, Mapping):
            fields["thinking"] = {("budget_tokens" if k == "budgetTokens" else k): v for k, v in value.items()}
        elif key == "effort":
            fields["output_config"] = {"effort": value}
        elif key != "sendReasoning":
            fields[key] = value
    return fields
