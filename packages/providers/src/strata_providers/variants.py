"""A model's variants: named reasoning settings (`--variant high`), as OpenCode derives them per SDK package.

Options are written in the AI SDK's names (`reasoningEffort`, `thinking.budgetTokens`), as in config;
`params` renames them to each wire's fields. The first variant is what small calls (titles) run with.

Two sources, as in OpenCode: a models.dev entry's `reasoning_options` (effort levels, a thinking-token budget,
an on/off toggle) when it has them, else rules by package and model id for reasoning models.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from strata_core.config import merge_deep
from strata_core.engine import OUTPUT_TOKEN_MAX
from strata_core.llm import ModelInfo

Variants = dict[str, dict[str, Any]]

EFFORTS = ("low", "medium", "high")
ANTHROPIC_NPMS = ("@ai-sdk/anthropic", "@ai-sdk/google-vertex/anthropic")
OPENROUTER_NPM = "@openrouter/ai-sdk-provider"
OPENAI_NPMS = ("@ai-sdk/openai", "@ai-sdk/azure")
EFFORT_NPMS = ("@ai-sdk/openai-compatible", "@ai-sdk/xai", "@ai-sdk/mistral", "@ai-sdk/groq", "@ai-sdk/cerebras",
               "@ai-sdk/deepinfra", "@ai-sdk/togetherai", "venice-ai-sdk-provider", "ai-gateway-provider")  # fmt: skip
# Families whose reasoning has no effort setting on the chat wire (OpenCode offers them no variants).
NO_VARIANTS = ("deepseek-chat", "deepseek-reasoner", "deepseek-r1", "deepseek-v3", "minimax", "glm", "kimi", "k2p",
               "qwen", "big-pickle")  # fmt: skip
ADAPTIVE_CLAUDE = ("opus-4-6", "opus-4.6", "4-6-opus", "4.6-opus", "sonnet-4-6", "sonnet-4.6", "4-6-sonnet",
                   "4.6-sonnet")  # fmt: skip

_CLAUDE_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:[.-](\d{1,2}))?(?:[.@-]|$)", re.IGNORECASE)


def catalog_variants(
    npm: str, model_id: str, api_id: str, output_limit: int, reasoning: bool, reasoning_options: object
) -> Variants:
    """The variants of a catalogue model, from its `reasoning_options` when models.dev gives them."""
    if isinstance(reasoning_options, list):
        stated = [option for option in reasoning_options if isinstance(option, dict)]
        found = _from_reasoning_options(npm, api_id, output_limit, stated)
        if found is not None:
            return found
    return _by_package(npm, model_id, api_id, output_limit) if reasoning else {}


def package_variants(info: ModelInfo) -> Variants:
    """The variants of a model known only from config: by its package and id, when it reasons."""
    if not info.capabilities.reasoning:
        return {}
    return _by_package(info.npm, info.id, info.api_model_id, info.limits.output)


def configured_variants(base: Mapping[str, Mapping[str, Any]], config: Mapping[str, Any]) -> Variants:
    """`models.<id>.variants` from config over the catalogue's: merged by name, `disabled: true` removes one."""
    merged: Variants = {name: dict(options) for name, options in base.items()}
    for name, options in config.items():
        if isinstance(options, Mapping):
            merged[name] = merge_deep(merged.get(name, {}), dict(options))
    return {name: {k: v for k, v in opts.items() if k != "disabled"} for name, opts in merged.items()
            if not opts.get("disabled")}  # fmt: skip


def _from_reasoning_options(
    npm: str, api_id: str, output: int, options: Sequence[Mapping[str, Any]]
) -> Variants | None:
    """Variants from models.dev's `reasoning_options`; None where OpenCode falls back to its package rules."""
    if not options:
        return {}
    effort = next((o for o in options if o.get("type") == "effort"), None)
    if effort is not None:
        levels = ["none" if value is None else value for value in effort.get("values") or ()]
        efforts = {level: _effort(npm, api_id, level, output) for level in levels if isinstance(level, str)}
        return {level: settings for level, settings in efforts.items() if settings}
    budget = next((o for o in options if o.get("type") == "budget_tokens"), None)
    if budget is None:
        return None
    ceiling = min(_number(budget.get("max"), OUTPUT_TOKEN_MAX - 1), output - 1, OUTPUT_TOKEN_MAX - 1)
    if ceiling <= 0:
        return None
    high = min(max(_number(budget.get("min"), 0), (ceiling + 1) // 2), ceiling)
    variants = {name: found for name, tokens in (("high", high), ("max", ceiling)) if (found := _budget(npm, tokens))}
    return variants or None


def _effort(npm: str, api_id: str, level: str, output: int) -> dict[str, Any] | None:
    if npm == OPENROUTER_NPM:
        return {"reasoning": {"effort": level}}
    if npm in ANTHROPIC_NPMS:
        if _budgeted_claude(api_id):
            return _budget_and_effort(level, output)
        if _adaptive_levels(api_id) is not None:
            return {"thinking": _adaptive(api_id), "effort": level}
        return {"effort": level}
    if npm in OPENAI_NPMS or npm in EFFORT_NPMS:
        return {"reasoningEffort": level}
    return None


def _budget(npm: str, tokens: int) -> dict[str, Any] | None:
    if npm == OPENROUTER_NPM:
        return {"reasoning": {"max_tokens": tokens}}
    if npm in ANTHROPIC_NPMS:
        return {"thinking": {"type": "enabled", "budgetTokens": tokens}}
    return None


def _by_package(npm: str, model_id: str, api_id: str, output: int) -> Variants:
    lowered = model_id.lower()
    if any(family in lowered for family in NO_VARIANTS):
        return {}
    if npm == OPENROUTER_NPM:
        return {level: {"reasoning": {"effort": level}} for level in EFFORTS}
    if npm in ANTHROPIC_NPMS:
        levels = _adaptive_levels(api_id)
        if levels is not None:
            return {level: {"thinking": _adaptive(api_id), "effort": level} for level in levels}
        if _budgeted_claude(api_id):
            return {level: _budget_and_effort(level, output) for level in EFFORTS}
        return {
            "high": {"thinking": {"type": "enabled", "budgetTokens": min(16000, output // 2 - 1)}},
            "max": {"thinking": {"type": "enabled", "budgetTokens": min(31999, output - 1)}},
        }
    if npm == "@ai-sdk/groq":
        return {level: {"reasoningEffort": level} for level in ("none", *EFFORTS)}
    if npm in OPENAI_NPMS or npm in EFFORT_NPMS:
        levels = (*EFFORTS, "max") if "deepseek-v4" in api_id.lower() else EFFORTS
        return {level: {"reasoningEffort": level} for level in levels}
    return {}


def _adaptive_levels(api_id: str) -> tuple[str, ...] | None:
    """The effort levels of Claude models that think adaptively (4.6 and later, or an unversioned name)."""
    if _is_new_claude(api_id):
        return ("low", "medium", "high", "xhigh", "max")
    if any(mark in api_id for mark in ADAPTIVE_CLAUDE):
        return ("low", "medium", "high", "max")
    return None


def _adaptive(api_id: str) -> dict[str, Any]:
    return {"type": "adaptive", "display": "summarized"} if _is_new_claude(api_id) else {"type": "adaptive"}


def _is_new_claude(api_id: str) -> bool:
    if "claude-" not in api_id.lower():
        return False
    match = _CLAUDE_VERSION.search(api_id)
    if match is None:
        return True
    return (int(match.group(1)), int(match.group(2) or 0)) >= (4, 7)


def _budgeted_claude(api_id: str) -> bool:
    """Opus 4.5 takes a thinking budget and an effort together."""
    return any(mark in api_id for mark in ("opus-4-5", "opus-4.5"))


def _budget_and_effort(level: str, output: int) -> dict[str, Any]:
    return {"thinking": {"type": "enabled", "budgetTokens": min(16000, output // 2 - 1)}, "effort": level}


def _number(value: object, default: int) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
