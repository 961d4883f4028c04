"""Request parameters by model family (reference 7) and provider options per call kind."""

from __future__ import annotations

import attrs
import pytest

from strata_core.config.merge import merge_deep
from strata_core.context.agent import AgentInfo
from strata_core.llm import ModelCapabilities, ModelInfo, ModelLimits
from strata_core.permission.rules import Ruleset
from strata_providers.params import (
    ProviderParameters,
    default_temperature,
    default_top_p,
    provider_options,
    request_parameters,
)
from strata_providers.variants import package_variants


def model(model_id: str, provider: str = "mock", npm: str = "@ai-sdk/openai-compatible", **caps: object) -> ModelInfo:
    """A model as the catalogue builds one from config: its variants derived from its package and id."""
    info = ModelInfo(provider, model_id, npm=npm, limits=ModelLimits(200_000, 64_000),
                     capabilities=ModelCapabilities(**caps))  # type: ignore[arg-type]  # fmt: skip
    return attrs.evolve(info, variants=package_variants(info))


@pytest.mark.parametrize(
    ("model_id", "temperature", "top_p"),
    [
        ("qwen3-coder", None, None),  # OpenCode 1.18 dropped its qwen defaults
        ("claude-sonnet-4-5", None, None),
        ("gemini-2.5-pro", 1.0, 0.95),
        ("gemini-3-flash-preview", 1.0, 0.95),
        ("google/gemini-3.8-flash", None, None),  # what OpenCode sent for OpenRouter's small model
        ("north-mini-code", 1.0, None),
        ("glm-4.6", 1.0, None),
        ("MiniMax-M2", 1.0, 0.95),
        ("kimi-k2-thinking", 1.0, None),
        ("kimi-k2.5", 1.0, 0.95),
        ("kimi-k2-0905-preview", 0.6, None),
        ("gpt-4o", None, None),
    ],
)
def test_defaults_follow_the_model_family(model_id: str, temperature: float | None, top_p: float | None) -> None:
    assert default_temperature(model_id) == temperature
    assert default_top_p(model_id) == top_p


def test_the_agents_settings_win_over_the_family_defaults() -> None:
    params = request_parameters(model("qwen3-coder"), agent_temperature=0.2, agent_top_p=0.5)
    assert (params.temperature, params.top_p) == (0.2, 0.5)


def test_a_model_without_temperature_support_gets_none_even_from_the_agent() -> None:
    params = request_parameters(model("kimi-k2.5", temperature=False), agent_temperature=0.2)
    assert params.temperature is None and params.top_p == 0.95  # top-p is not gated


def test_deepseek_v4_flash_gets_its_top_p_from_deepseek_itself_only() -> None:
    assert default_top_p("deepseek-v4-flash", "deepseek") == 0.95
    assert default_top_p("deepseek-v4-flash", "openrouter") is None


@pytest.mark.parametrize(("output", "expected"), [(0, 32_000), (8_192, 8_192), (128_000, 32_000)])
def test_the_output_budget_is_the_models_limit_capped_at_32000(output: int, expected: int) -> None:
    info = ModelInfo("mock", "m", limits=ModelLimits(context=100_000, output=output))
    assert request_parameters(info).max_output_tokens == expected
    assert request_parameters(info, output_token_max=4_000).max_output_tokens == min(4_000, output or 4_000)


def test_openai_calls_are_not_stored_and_share_a_prompt_cache_key_per_session() -> None:
    gpt5 = model("gpt-5", provider="openai", npm="@ai-sdk/openai", reasoning=True)
    assert provider_options(gpt5, session_id="ses_1") == {
        "store": False, "prompt_cache_key": "ses_1", "reasoning_effort": "medium"}  # fmt: skip
    # A title runs with the first variant; the Responses-API settings in it have no chat-completions field.
    assert provider_options(gpt5, small=True) == {"store": False, "reasoning_effort": "low"}


def test_a_variant_applies_to_full_calls_over_everything_else_and_never_to_small_ones() -> None:
    gpt5 = model("gpt-5", provider="openai", npm="@ai-sdk/openai", reasoning=True)
    assert provider_options(gpt5, session_id="s", variant="high")["reasoning_effort"] == "high"
    assert provider_options(gpt5, small=True, variant="high")["reasoning_effort"] == "low"
    assert provider_options(gpt5, variant="no-such-variant")["reasoning_effort"] == "medium"
    claude = model("claude-haiku-4-5", npm="@ai-sdk/anthropic", reasoning=True)
    assert list(claude.variants) == ["high", "max"]
    assert provider_options(claude, variant="max") == {"thinking": {"type": "enabled", "budget_tokens": 31999}}


def test_a_title_call_on_a_reasoning_claude_asks_for_little_thinking() -> None:
    # What OpenCode 1.18.33 sent for the oracle's claude-sonnet-mock title request.
    mock = model("claude-sonnet-mock", npm="@ai-sdk/anthropic", reasoning=True)
    assert provider_options(mock, small=True) == {
        "thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "low"}}  # fmt: skip
    assert provider_options(mock, session_id="s") == {}
    # Claude models released before adaptive thinking would reject it: they get a thinking budget instead.
    for legacy in ("claude-haiku-4-5", "claude-sonnet-4-20250514", "claude-opus-4-1"):
        assert provider_options(model(legacy, npm="@ai-sdk/anthropic", reasoning=True), small=True) == {
            "thinking": {"type": "enabled", "budget_tokens": 16000}}  # fmt: skip
    assert provider_options(model("claude-3-5-haiku-latest", npm="@ai-sdk/anthropic"), small=True) == {}


def test_config_options_are_renamed_to_the_wires_fields_and_merged_over_the_defaults() -> None:
    chat = ModelInfo("openai", "gpt-5", npm="@ai-sdk/openai", options={"reasoningEffort": "high", "custom": 1})
    assert provider_options(chat, agent_options={"textVerbosity": "high"}) == {
        "store": False, "reasoning_effort": "high", "custom": 1, "verbosity": "high"}  # fmt: skip
    claude = ModelInfo("anthropic", "claude-opus-4-5", npm="@ai-sdk/anthropic",
                       options={"thinking": {"type": "enabled", "budgetTokens": 16000}, "effort": "high"})  # fmt: skip
    assert provider_options(claude) == {
        "thinking": {"type": "enabled", "budget_tokens": 16000}, "output_config": {"effort": "high"}}  # fmt: skip


def test_an_agents_nested_options_merge_into_the_models_key_by_key_as_config_layers_do() -> None:
    claude = ModelInfo("anthropic", "claude-opus-4-5", npm="@ai-sdk/anthropic",
                       options={"thinking": {"type": "enabled", "budgetTokens": 16000}})  # fmt: skip
    merged = provider_options(claude, agent_options={"thinking": {"budgetTokens": 4000}})
    assert merged == {"thinking": {"type": "enabled", "budget_tokens": 4000}}
    assert merged == merge_deep(provider_options(claude), {"thinking": {"budget_tokens": 4000}})


def test_provider_parameters_is_the_cores_parameter_policy() -> None:
    agent = AgentInfo(name="title", mode="primary", permission=Ruleset(()), temperature=0.5, options={"x": 1})
    params = ProviderParameters().call_parameters(model("gemini-2.5-flash", provider="google"), agent,
                                                  session_id="s", small=True)  # fmt: skip
    assert (params.temperature, params.top_p, params.max_output_tokens) == (0.5, 0.95, 32_000)
    assert params.provider_options == {"x": 1}
