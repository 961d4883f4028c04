"""The overflow test and the token estimate (reference 9.1, 9.5)."""

from __future__ import annotations

import pytest

from strata_core.engine.compaction import CompactionSettings, compact_at, estimate_tokens, is_overflow, usable_context
from strata_core.engine.parameters import max_output_tokens
from strata_core.llm import ModelLimits
from strata_core.message import Tokens


def test_max_output_tokens_is_capped_and_defaults_to_the_cap() -> None:
    assert max_output_tokens(ModelLimits(context=100_000, output=8_000)) == 8_000
    assert max_output_tokens(ModelLimits(context=100_000, output=64_000)) == 32_000
    assert max_output_tokens(ModelLimits(context=100_000, output=0)) == 32_000


def test_the_input_limit_branch_reserves_less_than_the_context_branch() -> None:
    # OpenCode asserts this asymmetry (its tests call it a known BUG): with an input limit only
    # min(20 000, max output) is kept free; without one the whole max output is.
    with_input = ModelLimits(context=200_000, output=32_000, input=200_000)
    without_input = ModelLimits(context=200_000, output=32_000)
    assert usable_context(with_input) == 180_000
    assert usable_context(without_input) == 168_000
    tokens = Tokens(input=170_000)
    assert not is_overflow(tokens, with_input)
    assert is_overflow(tokens, without_input)


def test_configured_reserve_only_applies_to_models_with_an_input_limit() -> None:
    settings = CompactionSettings(reserved=50_000)
    assert usable_context(ModelLimits(context=200_000, output=32_000, input=200_000), reserved=50_000) == 150_000
    assert usable_context(ModelLimits(context=200_000, output=32_000), reserved=50_000) == 168_000
    assert is_overflow(Tokens(input=150_000), ModelLimits(context=200_000, output=32_000, input=200_000), settings)


def test_overflow_counts_the_total_when_given_else_the_sum_with_cache() -> None:
    limits = ModelLimits(context=10_000, output=2_000)  # usable 8 000
    assert is_overflow(Tokens(input=5_000, output=1_000, cache_read=1_500, cache_write=500), limits)
    assert not is_overflow(Tokens(input=5_000, output=1_000, cache_read=1_500, cache_write=499), limits)
    assert not is_overflow(Tokens(input=9_000, total=7_999), limits)


@pytest.mark.parametrize(
    ("limits", "settings"),
    [
        (ModelLimits(context=0, output=1_000), CompactionSettings()),
        (ModelLimits(context=10_000, output=1_000), CompactionSettings(auto=False)),
    ],
)
def test_unknown_context_or_auto_off_never_overflows(limits: ModelLimits, settings: CompactionSettings) -> None:
    assert not is_overflow(Tokens(input=10**9), limits, settings)
    assert compact_at(limits, settings) is None


@pytest.mark.parametrize(
    ("text", "expected"), [("", 0), ("a", 0), ("ab", 1), ("abc", 1), ("abcdef", 2), ("x" * 400, 100)]
)
def test_token_estimate_is_a_quarter_of_the_characters_rounded_half_up(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected
