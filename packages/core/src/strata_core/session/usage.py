"""What a session (or any run of messages) used and cost: its steps' tokens and USD, summed.

Each step stores its own usage and cost (`step-finish`), and an assistant message the sum of its steps' costs
with the last step's tokens, as OpenCode stores them. Totals here add up the steps, so a message of three
steps counts all three steps' tokens; a message whose parts were not loaded counts its own figures.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
from attrs import frozen

from strata_core.message import AssistantMessage, MessageWithParts, StepFinishPart, Tokens


@frozen
class UsageTotals:
    """Tokens and USD summed over steps."""

    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    steps: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input + self.output + self.reasoning + self.cache_read + self.cache_write

    def plus_usage(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            self.input + other.input,
            self.output + other.output,
            self.reasoning + other.reasoning,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.cost + other.cost,
            self.steps + other.steps,
        )

    def plus(self, tokens: Tokens, cost: float, steps: int = 1) -> UsageTotals:
        counted = UsageTotals(tokens.input, tokens.output, tokens.reasoning, tokens.cache_read, tokens.cache_write)
        return self.plus_usage(attrs.evolve(counted, cost=cost, steps=steps))


def usage_of(messages: Iterable[MessageWithParts]) -> UsageTotals:
    """The steps' usage in `messages` (assistant messages only; the user's own messages cost nothing)."""
    total = UsageTotals()
    for message in messages:
        if not isinstance(message.info, AssistantMessage):
            continue
        steps = [part for part in message.parts if isinstance(part, StepFinishPart)]
        if steps:
            for step in steps:
                total = total.plus(step.tokens, step.cost)
        elif message.info.cost or message.info.tokens.count:
            total = total.plus(message.info.tokens, message.info.cost)
    return total
