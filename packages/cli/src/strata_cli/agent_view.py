"""Agents as the CLI shows them: the JSON of `strata debug agent`, and the lookup error that lists the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from strata_cli.errors import CliError

if TYPE_CHECKING:
    from strata_core.context import AgentInfo


def agent_not_found(name: str, agents: Sequence[AgentInfo]) -> CliError:
    """OpenCode's wording, with the visible agents to choose from."""
    visible = ", ".join(agent.name for agent in agents if not agent.hidden)
    suffix = f" Available agents: {visible}" if visible else ""
    return CliError(f'Agent not found: "{name}".{suffix}')


def primary_agents(agents: Sequence[AgentInfo]) -> list[str]:
    """The agents a person can talk to directly (Tab cycles these): not subagents, not hidden."""
    return [agent.name for agent in agents if agent.mode != "subagent" and not agent.hidden]


def agent_json(agent: AgentInfo) -> dict[str, Any]:
    """Everything about an agent, permission rules included in evaluation order (the last match wins)."""
    return {
        "name": agent.name,
        "mode": agent.mode,
        "description": agent.description,
        "native": agent.native,
        "hidden": agent.hidden,
        "model": agent.model.ref if agent.model else None,
        "variant": agent.variant,
        "temperature": agent.temperature,
        "top_p": agent.top_p,
        "steps": agent.steps,
        "options": dict(agent.options),
        "prompt": agent.prompt,
        "permission": [
            {"permission": rule.permission, "pattern": rule.pattern, "action": rule.action} for rule in agent.permission
        ],
    }
