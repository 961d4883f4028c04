"""Variants as OpenCode 1.18.33 derives them: from models.dev's reasoning_options, else by package and model id."""

from __future__ import annotations

from typing import Any

from strata_providers.variants import catalog_variants, configured_variants

ANTHROPIC = "@ai-sdk/anthropic"
COMPATIBLE = "@ai-sdk/openai-compatible"
OPENROUTER = "@openrouter/ai-sdk-provider"


def variants(npm: str, model_id: str, options: object = None, output: int = 64_000) -> dict[str, dict[str, Any]]:
    return catalog_variants(npm, model_id, model_id, output, True, options)


def test_effort_levels_become_one_variant_each_in_the_packages_terms() -> None:
    effort = [{"type": "effort", "values": ["low", "high", None]}]
    found = variants(COMPATIBLE, "deepseek-v4-pro", effort)
    assert found == {level: {"reasoningEffort": level} for level in ("low", "high", "none")}
    assert variants(OPENROUTER, "google/gemini-3.8-flash", effort)["low"] == {"reasoning": {"effort": "low"}}


def test_a_thinking_budget_becomes_high_and_max_within_the_output_limit() -> None:
    budget = [{"type": "budget_tokens", "min": 1024}]
    assert variants(ANTHROPIC, "claude-haiku-4-5", budget) == {
        "high": {"thinking": {"type": "enabled", "budgetTokens": 16000}},
        "max": {"thinking": {"type": "enabled", "budgetTokens": 31999}},
    }
    assert variants(ANTHROPIC, "claude-haiku-4-5", budget, output=8192)["max"] == {
        "thinking": {"type": "enabled", "budgetTokens": 8191}}  # fmt: skip
    assert variants(OPENROUTER, "anthropic/claude-haiku-4.5", budget)["high"] == {"reasoning": {"max_tokens": 16000}}


def test_without_reasoning_options_the_package_rules_apply() -> None:
    assert list(variants(COMPATIBLE, "some-reasoner")) == ["low", "medium", "high"]
    assert list(variants(COMPATIBLE, "deepseek-v4-flash")) == ["low", "medium", "high", "max"]
    assert variants(COMPATIBLE, "qwen3-coder") == {}  # families without an effort setting
    assert list(variants("@ai-sdk/groq", "openai/gpt-oss-120b")) == ["none", "low", "medium", "high"]
    assert catalog_variants(COMPATIBLE, "m", "m", 1000, False, None) == {}  # not a reasoning model
    # A toggle alone gives OpenCode nothing to name, so its package rules decide.
    assert list(variants(COMPATIBLE, "some-reasoner", [{"type": "toggle"}])) == ["low", "medium", "high"]
    assert variants(COMPATIBLE, "some-reasoner", []) == {}  # stated: no reasoning settings at all


def test_claude_models_think_by_budget_adaptively_or_both_by_release() -> None:
    assert list(variants(ANTHROPIC, "claude-sonnet-4-5")) == ["high", "max"]
    assert variants(ANTHROPIC, "claude-opus-4-5")["low"] == {
        "thinking": {"type": "enabled", "budgetTokens": 16000}, "effort": "low"}  # fmt: skip
    assert list(variants(ANTHROPIC, "claude-sonnet-4-6")) == ["low", "medium", "high", "max"]
    assert variants(ANTHROPIC, "claude-sonnet-4-6")["low"] == {"thinking": {"type": "adaptive"}, "effort": "low"}
    assert variants(ANTHROPIC, "claude-opus-4-7")["xhigh"] == {
        "thinking": {"type": "adaptive", "display": "summarized"}, "effort": "xhigh"}  # fmt: skip


def test_config_variants_merge_by_name_and_disabled_ones_go() -> None:
    base = {"low": {"reasoningEffort": "low"}, "high": {"reasoningEffort": "high"}}
    merged = configured_variants(base, {"high": {"disabled": True}, "low": {"textVerbosity": "low"}, "x": {"a": 1}})
    assert merged == {"low": {"reasoningEffort": "low", "textVerbosity": "low"}, "x": {"a": 1}}
