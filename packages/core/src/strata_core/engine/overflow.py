"""When a conversation no longer fits its model: the overflow test and the token estimate (reference 9.1, 9.5).

Pure functions of plain values, so the rules (and OpenCode's asymmetry between models that state an input
limit and those that do not) are pinned by tests without a session.
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from strata_core.config.flags import env_flag
from strata_core.config.schema import CompactionConfig
from strata_core.llm import ModelLimits
from strata_core.message import Tokens

OUTPUT_TOKEN_MAX = 32_000
"""The most output tokens a request asks for (OpenCode's OUTPUT_TOKEN_MAX)."""
OUTPUT_TOKEN_MAX_ENV = "OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX"
RESERVED_CAP = 20_000
"""Output reserve for models with a separate input limit: min(this, max output tokens)."""


@frozen
class CompactionSettings:
    """The `compaction` config block, as far as the engine needs it."""

    auto: bool = True
    prune: bool = False
    """Opt-in, as in OpenCode's code (its schema text claims the default is on)."""
    reserved: int | None = None
    tail_turns: int = 2
    preserve_recent_tokens: int | None = None


def compaction_settings(config: CompactionConfig, env: Mapping[str, str]) -> CompactionSettings:
    """The `compaction` block with OpenCode's defaults and env switches (`*_DISABLE_AUTOCOMPACT`, `*_DISABLE_PRUNE`)."""
    return CompactionSettings(
        auto=config.auto is not False and not env_flag(env, "DISABLE_AUTOCOMPACT"),
        prune=bool(config.prune) and not env_flag(env, "DISABLE_PRUNE"),
        reserved=config.reserved,
        tail_turns=2 if config.tail_turns is None else config.tail_turns,
        preserve_recent_tokens=config.preserve_recent_tokens,
    )


def max_output_tokens(limits: ModelLimits, cap: int = OUTPUT_TOKEN_MAX) -> int:
    """`min(limit.output, cap)`, or the cap when the model's output limit is unknown."""
    return min(limits.output, cap) or cap


def usable_context(limits: ModelLimits, *, reserved: int | None = None, output_cap: int = OUTPUT_TOKEN_MAX) -> int:
    """How many tokens the conversation may use before it must be compacted.

    The two branches reserve differently on purpose (OpenCode's tests assert it): a model with an input
    limit keeps `reserved` (default min(20 000, max output)) free; one without keeps its full max output.
    """
    max_output = max_output_tokens(limits, output_cap)
    if limits.input:
        keep = reserved if reserved is not None else min(RESERVED_CAP, max_output)
        return max(0, limits.input - keep)
    return max(0, limits.context - max_output)


def is_overflow(
    tokens: Tokens,
    limits: ModelLimits,
    settings: CompactionSettings | None = None,
    *,
    output_cap: int = OUTPUT_TOKEN_MAX,
) -> bool:
    """Whether the last step's token count has reached the usable context."""
    settings = settings or CompactionSettings()
    if not settings.auto or limits.context == 0:
        return False
    return tokens.count >= usable_context(limits, reserved=settings.reserved, output_cap=output_cap)


def estimate_tokens(text: str) -> int:
    """OpenCode's estimate: a token is about four characters (halves round up, as JavaScript's Math.round)."""
    return (len(text) + 2) // 4
