"""What a step costs: a model's prices (models.dev's `cost`, USD per million tokens) applied to its usage.

OpenCode's accounting (`Session.getUsage`): input and output are billed without the cache and reasoning tokens
they were reported with, cache reads and writes at their own prices, reasoning at the output price; past a
context tier (`tiers`, else the older `context_over_200k`) the tier's prices apply to the whole step. A cost the
provider reported itself (OpenRouter's `usage.cost`) is believed over any computation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import field, frozen

from strata_core.llm.events import Usage

PER_TOKENS = 1_000_000
OVER_200K = 200_000


@frozen
class Prices:
    """USD per million tokens; a price nobody published is 0."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@frozen
class ContextTier:
    """Prices that apply once a step's input (cache included) is larger than `size` tokens."""

    size: int
    prices: Prices


@frozen
class ModelCost:
    """A model's prices: the base ones and the context tiers above them."""

    base: Prices = field(factory=Prices)
    tiers: tuple[ContextTier, ...] = ()

    def prices_for(self, input_tokens: int) -> Prices:
        """The prices of a step that sent `input_tokens` in all: the largest tier it passed, else the base."""
        passed = [tier for tier in self.tiers if input_tokens > tier.size]
        return max(passed, key=lambda tier: tier.size).prices if passed else self.base


def step_cost(usage: Usage, cost: ModelCost | None) -> float:
    """The USD cost of one step: the provider's own figure when it gave one, else the model's prices."""
    if usage.cost is not None and usage.cost >= 0:
        return usage.cost
    if cost is None:
        return 0.0
    sent = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    prices = cost.prices_for(sent)
    millionths = (
        usage.input_tokens * prices.input
        + usage.output_tokens * prices.output
        + usage.cache_read_tokens * prices.cache_read
        + usage.cache_write_tokens * prices.cache_write
        + usage.reasoning_tokens * prices.output
    )
    return max(0.0, millionths / PER_TOKENS)


def model_cost(raw: Mapping[str, Any] | None) -> ModelCost | None:
    """models.dev's `cost` object (also what `provider.<id>.models.<id>.cost` holds in config) as a `ModelCost`."""
    if not isinstance(raw, Mapping):
        return None
    tiers: list[ContextTier] = []
    for tier in _list(raw.get("tiers")):
        bound = tier.get("tier")
        if isinstance(bound, Mapping) and bound.get("type") == "context" and _is_number(bound.get("size")):
            tiers.append(ContextTier(int(bound["size"]), _prices(tier)))
    over = raw.get("context_over_200k")
    if not tiers and isinstance(over, Mapping):
        tiers.append(ContextTier(OVER_200K, _prices(over)))
    return ModelCost(_prices(raw), tuple(tiers))


def _prices(raw: Mapping[str, Any]) -> Prices:
    return Prices(_price(raw, "input"), _price(raw, "output"), _price(raw, "cache_read"), _price(raw, "cache_write"))


def _price(raw: Mapping[str, Any], key: str) -> float:
    value = raw.get(key)
    return float(value) if isinstance(value, int | float) and _is_number(value) else 0.0


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _list(value: object) -> Sequence[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []
