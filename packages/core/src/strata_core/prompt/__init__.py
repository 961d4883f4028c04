"""The system prompt and the other texts a model reads: provider prompts, the environment block, reminders.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.prompt.reminders import BUILD_AGENT
    from strata_core.prompt.system import AssembledSystemPrompt, SystemPromptRequest

__all__ = [
    "BUILD_AGENT",
    "AssembledSystemPrompt",
    "SystemPromptRequest",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AssembledSystemPrompt": "strata_core.prompt.system",
        "BUILD_AGENT": "strata_core.prompt.reminders",
        "SystemPromptRequest": "strata_core.prompt.system",
    },
)
