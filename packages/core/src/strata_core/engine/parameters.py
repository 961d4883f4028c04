"""Sampling parameters and provider options for one model call, as a swappable policy.

OpenCode's rules for these (reference 7: per-family temperature and top-p defaults, the output budget,
provider options) live with the providers, which the core never imports. The core asks a
`ParameterPolicy`; the application plugs in the providers' one, and `BasicParameters` is the fallback that
applies only what the model and agent state themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from attrs import field, frozen

from strata_core.context.agent import AgentInfo
from strata_core.llm import ModelInfo, ModelLimits

OUTPUT_TOKEN_MAX = 32_000
"""The most output tokens a request asks for (OpenCode's OUTPUT_TOKEN_MAX)."""


@frozen
class CallParameters:
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    provider_options: Mapping[str, Any] = field(factory=dict)


class ParameterPolicy(Protocol):
    def call_parameters(
        self,
        model: ModelInfo,
        agent: AgentInfo,
        *,
        session_id: str | None,
        small: bool = False,
        variant: str | None = None,
    ) -> CallParameters:
        """Parameters for a call of `model` on behalf of `agent`; `small` marks cheap calls such as titles, and
        `variant` names one of the model's variants (`--variant high`) for full calls."""
        ...


class BasicParameters:
    """The agent's own temperature (when the model takes one) and top-p, the capped output budget, no options."""

    def call_parameters(
        self,
        model: ModelInfo,
        agent: AgentInfo,
        *,
        session_id: str | None,
        small: bool = False,
        variant: str | None = None,
    ) -> CallParameters:
        temperature = agent.temperature if model.capabilities.temperature else None
        return CallParameters(temperature, agent.top_p, max_output_tokens(model.limits), dict(agent.options))


def max_output_tokens(limits: ModelLimits, cap: int = OUTPUT_TOKEN_MAX) -> int:
    """The output budget of a call: `min(limit.output, cap)`, or the cap when the model's output limit is unknown."""
    return min(limits.output, cap) or cap
