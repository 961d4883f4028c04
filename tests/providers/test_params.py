"""Request parameters by model family (reference 7) and provider options per call kind."""

from __future__ import annotations

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


def model(model_id: str, provider: str = "mock", npm: str = "@ai-sdk/openai-compatible", **caps: object) -> ModelInfo:
    return ModelInfo(provider, model_id, npm=npm, capabilities=ModelCapabilities(**caps))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("model_id", "temperature", "top_p"),
    [
        ("qwen3-coder", 0.55, 1.0),
        ("claude-sonnet-4-5", None, None),
        ("gemini-2.5-pro", 1.0, 0.95),
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
    params = request_parameters(model("qwen3-coder", temperature=False), agent_temperature=0.2)
    assert params.temperature is None and params.top_p == 1.0  # top-p is not gated


@pytest.mark.parametrize(("output", "expected"), [(0, 32_000), (8_192, 8_192), (128_000, 32_000)])
def test_the_output_budget_is_the_models_limit_capped_at_32000(output: int, expected: int) -> None:
    info = ModelInfo("mock", "m", limits=ModelLimits(context=100_000, output=output))
    assert request_parameters(info).max_output_tokens == expected
    assert request_parameters(info, output_token_max=4_000).max_output_tokens == min(4_000, output or 4_000)


def test_openai_calls_are_not_stored_and_share_a_prompt_cache_key_per_session() -> None:
    gpt5 = model("gpt-5", provider="openai", npm="@ai-sdk/openai")
    assert provider_options(gpt5, session_id="ses_1") == {
        "store": False, "prompt_cache_key": "ses_1", "reasoning_effort": "medium"}  # fmt: skip
    assert provider_options(gpt5, small=True) == {"store": False, "reasoning_effort": "minimal"}
    assert provider_options(model("gpt-5.1", provider="openai", npm="@ai-sdk/openai"), small=True)[
        "reasoning_effort"] == "low"  # fmt: skip


def test_a_title_call_on_a_reasoning_claude_asks_for_little_thinking() -> None:
    # What OpenCode 1.18.33 sent for the oracle's claude-sonnet-mock title request.
    mock = model("claude-sonnet-mock", npm="@ai-sdk/anthropic", reasoning=True)
    assert provider_options(mock, small=True) == {
        "thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": "low"}}  # fmt: skip
    assert provider_options(mock, session_id="s") == {}
    # Claude models released before adaptive thinking would reject it.
    for legacy in ("claude-haiku-4-5", "claude-3-5-haiku-latest", "claude-sonnet-4-20250514", "claude-opus-4-1"):
        assert provider_options(model(legacy, npm="@ai-sdk/anthropic", reasoning=True), small=True) == {}


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
    assert params.provider_options == {"reasoning_effort": "none", "x": 1}
