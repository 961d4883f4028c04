"""What a step costs: models.dev prices applied to usage as OpenCode does, and a provider's own figure believed."""

from __future__ import annotations

import pytest

from strata_core.llm import ContextTier, ModelCost, Prices, Usage, model_cost, step_cost

LONG_CONTEXT = {"input": 6, "output": 22.5, "cache_read": 0.6, "cache_write": 7.5}
SONNET_PRICES = {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75, "context_over_200k": LONG_CONTEXT}
SONNET = model_cost(SONNET_PRICES)


def test_input_and_output_are_billed_at_their_prices_per_million() -> None:
    # The case: two million tokens at {input: 3, output: 15} are not free.
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert step_cost(usage, model_cost({"input": 3, "output": 15})) == pytest.approx(18.0)


def test_cache_reads_and_writes_have_their_own_prices_and_reasoning_is_billed_as_output() -> None:
    usage = Usage(input_tokens=10_000, output_tokens=2_000, reasoning_tokens=1_000, cache_read_tokens=50_000,
                  cache_write_tokens=20_000)  # fmt: skip
    expected = (10_000 * 3 + 2_000 * 15 + 1_000 * 15 + 50_000 * 0.3 + 20_000 * 3.75) / 1_000_000
    assert step_cost(usage, SONNET) == pytest.approx(expected)  # 0.165 USD


def test_past_200k_tokens_of_input_the_tier_prices_apply_to_the_whole_step() -> None:
    # 150k new + 60k cached = 210k sent: the long-context prices, cache included.
    usage = Usage(input_tokens=150_000, output_tokens=1_000, cache_read_tokens=60_000)
    assert step_cost(usage, SONNET) == pytest.approx((150_000 * 6 + 1_000 * 22.5 + 60_000 * 0.6) / 1_000_000)
    below = Usage(input_tokens=150_000, output_tokens=1_000, cache_read_tokens=50_000)  # exactly 200k: base
    assert step_cost(below, SONNET) == pytest.approx((150_000 * 3 + 1_000 * 15 + 50_000 * 0.3) / 1_000_000)


def test_the_largest_tier_passed_wins() -> None:
    cost = model_cost({"input": 1, "output": 1, "tiers": [
        {"input": 2, "output": 2, "tier": {"type": "context", "size": 100}},
        {"input": 5, "output": 5, "tier": {"type": "context", "size": 1000}},
    ]})  # fmt: skip
    assert cost == ModelCost(Prices(1, 1), (ContextTier(100, Prices(2, 2)), ContextTier(1000, Prices(5, 5))))
    assert step_cost(Usage(input_tokens=50, output_tokens=0), cost) == pytest.approx(50 / 1e6)
    assert step_cost(Usage(input_tokens=500, output_tokens=0), cost) == pytest.approx(1000 / 1e6)
    assert step_cost(Usage(input_tokens=5000, output_tokens=0), cost) == pytest.approx(25_000 / 1e6)


def test_a_cost_the_provider_reported_is_believed() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cost=0.0421)
    assert step_cost(usage, SONNET) == 0.0421
    assert step_cost(usage, None) == 0.0421


def test_a_model_without_prices_costs_nothing() -> None:
    assert step_cost(Usage(input_tokens=1000, output_tokens=1000), None) == 0.0
    assert model_cost(None) is None and model_cost("free") is None  # type: ignore[arg-type]
    assert step_cost(Usage(input_tokens=1000), model_cost({"output": 2})) == 0.0  # no input price: 0
