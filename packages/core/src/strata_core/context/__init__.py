"""What a prompt is assembled from: the project, its agents, its skills and its instruction files.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.context.agent import AgentInfo, Agents
    from strata_core.context.command import CommandInfo
    from strata_core.context.command_template import mentioned_path, mentions

__all__ = [
    "AgentInfo",
    "Agents",
    "CommandInfo",
    "mentioned_path",
    "mentions",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AgentInfo": "strata_core.context.agent",
        "Agents": "strata_core.context.agent",
        "CommandInfo": "strata_core.context.command",
        "mentioned_path": "strata_core.context.command_template",
        "mentions": "strata_core.context.command_template",
    },
)
