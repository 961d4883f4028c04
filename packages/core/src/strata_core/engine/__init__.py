"""The engine: one turn of a session, from the user's message through model steps and tool calls to the finish.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.engine.compaction import NothingToCompactError
    from strata_core.engine.loop import TurnChoice
    from strata_core.engine.loop_services import TurnEnd
    from strata_core.engine.parameters import OUTPUT_TOKEN_MAX, CallParameters, ParameterPolicy, max_output_tokens
    from strata_core.engine.prompt_input import (
        AgentInput,
        FileInput,
        MessageIdError,
        PromptPart,
        PromptRequest,
        SubtaskInput,
        TextInput,
        check_message_id,
    )
    from strata_core.engine.session_writer import settle_if_idle, writing
    from strata_core.engine.turn_targets import AgentNotFoundError

__all__ = [
    "OUTPUT_TOKEN_MAX",
    "AgentInput",
    "AgentNotFoundError",
    "CallParameters",
    "FileInput",
    "MessageIdError",
    "NothingToCompactError",
    "ParameterPolicy",
    "PromptPart",
    "PromptRequest",
    "SubtaskInput",
    "TextInput",
    "TurnChoice",
    "TurnEnd",
    "check_message_id",
    "max_output_tokens",
    "settle_if_idle",
    "writing",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "AgentInput": "strata_core.engine.prompt_input",
        "AgentNotFoundError": "strata_core.engine.turn_targets",
        "CallParameters": "strata_core.engine.parameters",
        "FileInput": "strata_core.engine.prompt_input",
        "MessageIdError": "strata_core.engine.prompt_input",
        "NothingToCompactError": "strata_core.engine.compaction",
        "OUTPUT_TOKEN_MAX": "strata_core.engine.parameters",
        "ParameterPolicy": "strata_core.engine.parameters",
        "PromptPart": "strata_core.engine.prompt_input",
        "PromptRequest": "strata_core.engine.prompt_input",
        "SubtaskInput": "strata_core.engine.prompt_input",
        "TextInput": "strata_core.engine.prompt_input",
        "TurnChoice": "strata_core.engine.loop",
        "TurnEnd": "strata_core.engine.loop_services",
        "check_message_id": "strata_core.engine.prompt_input",
        "max_output_tokens": "strata_core.engine.parameters",
        "settle_if_idle": "strata_core.engine.session_writer",
        "writing": "strata_core.engine.session_writer",
    },
)
