"""Running a subagent for the task tool: a child session, prompted through the same loop.

The child starts with the rules `permission.subagent.child_session_rules` derives from its parent (the parent
session's denies are a ceiling). Unlike OpenCode, the child's prompt carries no `tools` map: in OpenCode
that map *replaces* the child session's rules it was just given; here the same denies are already among
those rules, so nothing is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attrs import define, field

from strata_core.config.service import Config
from strata_core.context.agent import Agents
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.errors import StrataError
from strata_core.message import AssistantMessage, TextPart
from strata_core.permission.rules import from_stored, to_config
from strata_core.permission.subagent import child_session_rules
from strata_core.session.session import Session
from strata_core.session_info import SessionInfo
from strata_core.tool.builtin.task import SubagentOutcome
from strata_core.tool.contract import ToolContext

if TYPE_CHECKING:
    from strata_core.engine.loop_services import Loop


def subagent_title(description: str, agent: str) -> str:
    return f"{description} (@{agent} subagent)"


class NoLoopError(StrataError):
    """A task ran before its runtime had a loop (the tools were used outside `open_runtime`)."""


@define
class LoopHandle:
    """The runtime's loop, for the task tool: set by the runtime once the loop exists (the loop's own tools
    include the task tool, so the loop cannot be handed to them when they are built)."""

    _loop: Loop | None = field(default=None, init=False)

    def set(self, loop: Loop) -> None:
        self._loop = loop

    def get(self) -> Loop:
        if self._loop is None:
            raise NoLoopError("the task tool runs subagents through a runtime's loop: open one with open_runtime")
        return self._loop


@define
class LoopSubagents:
    """The task tool's `SubagentRunner`, backed by the runtime's loop."""

    sessions: Session
    agents: Agents
    config: Config
    loop: LoopHandle

    async def run(
        self,
        parent_session_id: str,
        agent_name: str,
        description: str,
        prompt: str,
        task_id: str | None,
        ctx: ToolContext,
    ) -> SubagentOutcome:
        child = await self._resume(parent_session_id, task_id) or await self._create(
            parent_session_id, agent_name, description, ctx
        )
        ctx.update_metadata(description, {"sessionId": child.id})
        agent = await self.agents.get(agent_name)
        # The subagent's own model, else the model the parent is using right now (OpenCode's choice).
        model = agent.model.ref if agent is not None and agent.model else ctx.model.ref if ctx.model else None
        request = PromptRequest(session_id=child.id, parts=[TextInput(prompt)], agent=agent_name, model=model)
        answer = await self.loop.get().prompt(request)
        texts = [part.text for part in answer.parts if isinstance(part, TextPart) and not part.synthetic]
        used = answer.info
        if not isinstance(used, AssistantMessage):
            return SubagentOutcome(child.id, texts[-1] if texts else "")
        answered_with = {"modelID": used.model_id, "providerID": used.provider_id}
        # A failed turn (its model call refused, say) is the task's failure, not an empty answer.
        error = (used.error.message or used.error.name) if used.error is not None else None
        return SubagentOutcome(child.id, texts[-1] if texts else "", answered_with, error)

    async def _resume(self, parent_session_id: str, task_id: str | None) -> SessionInfo | None:
        if not task_id:
            return None
        children = await self.sessions.children(parent_session_id)
        return next((child for child in children if child.id == task_id), None)

    async def _create(self, parent_session_id: str, agent_name: str, description: str, ctx: ToolContext) -> SessionInfo:
        parent = await self.sessions.get(parent_session_id)
        parent_agent = await self.agents.get(ctx.agent)
        subagent = await self.agents.get(agent_name)
        primary_tools = (await self.config.get()).experimental.primary_tools
        rules = child_session_rules(
            parent_agent.permission if parent_agent else (),
            from_stored(parent.permission or ()),
            subagent.permission if subagent else (),
            primary_tools,
        )
        return await self.sessions.create(
            parent_id=parent.id, title=subagent_title(description, agent_name), permission=to_config(rules)
        )
