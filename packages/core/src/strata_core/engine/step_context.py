"""What a step hands its tools and what a structured-output step leaves behind.

Both are pure consequences of a step's inputs, kept apart from the loop so the loop reads as its control flow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from strata_core import llm
from strata_core.bus import Bus, SessionError
from strata_core.context.agent import AgentInfo
from strata_core.engine.processor import LoopStep, StepEnd
from strata_core.engine.turn_request import effective_ruleset
from strata_core.message import STRUCTURED_OUTPUT_ERROR, AgentPart, AssistantMessage, MessageError, MessageWithParts
from strata_core.project import ProjectInfo
from strata_core.session.store import SessionStore
from strata_core.session_info import SessionInfo
from strata_core.tool.contract import ToolContext

STRUCTURED_OUTPUT_MISSING = "Model did not produce structured output"


def tool_context(
    session: SessionInfo,
    agent: AgentInfo,
    project: ProjectInfo,
    model: llm.ModelInfo | None,
    history: Sequence[MessageWithParts],
    user: MessageWithParts | None = None,
) -> ToolContext:
    """The context every tool call of this step starts from (the runner fills in message and call ids)."""
    # A user who named an agent (`@explore`) may start it even where the rules would not let the model.
    bypass = user is not None and any(isinstance(p, AgentPart) for p in user.parts)
    return ToolContext(
        session_id=session.id,
        message_id="",
        call_id="",
        agent=agent.name,
        ruleset=effective_ruleset(agent, session),
        directory=Path(project.directory),
        worktree=Path(project.worktree),
        model=model,
        messages=history,
        extra={"bypass_agent_check": bypass},
    )


async def structured_outcome(
    store: SessionStore,
    bus: Bus,
    message: AssistantMessage,
    captured: Mapping[str, Any] | None,
    result: StepEnd,
) -> LoopStep:
    """Settle a step that was asked for structured output: store what it captured, or record the miss."""
    if captured is not None:
        message.structured = dict(captured)
        message.finish = message.finish or "stop"
    elif message.finish not in (None, "tool-calls", "unknown") and message.error is None:
        # OpenCode records the miss and stops; `retryCount` is not used to ask again.
        message.error = MessageError(STRUCTURED_OUTPUT_ERROR, STRUCTURED_OUTPUT_MISSING, {"retries": 0})
        bus.publish(SessionError(message.session_id, message.error))
    else:
        return StepEnd.CONTINUE if result is StepEnd.CONTINUE else StepEnd.STOP
    await store.put_message(message)
    bus.message_updated(message)
    return StepEnd.STOP
