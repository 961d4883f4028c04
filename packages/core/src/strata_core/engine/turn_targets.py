"""Which agent and which model a turn uses (reference 1.2 steps 5 and 8, 16.1), with OpenCode's errors.

A prompt names them or inherits them: the agent is the one asked for or the default agent; the model is
the one asked for, else the agent's, else the session's last, else the configured default. A name that
does not resolve is reported on the bus as a session error and raised, naming what is available.
"""

from __future__ import annotations

import attrs
from attrs import define

from strata_core import llm
from strata_core.bus import Bus, SessionError
from strata_core.context.agent import AgentInfo, Agents, parse_model
from strata_core.errors import StrataError
from strata_core.message import MessageError, ModelRef, UserMessage
from strata_core.session.store import SessionStore


class AgentNotFoundError(StrataError, LookupError):
    pass


@define
class TurnTargets:
    agents: Agents
    models: llm.ModelResolver
    store: SessionStore
    bus: Bus

    async def agent(self, session_id: str, name: str | None) -> AgentInfo:
        """The named agent, or the default one; `Agent not found: "x". Available agents: ...` otherwise."""
        agent = await self.agents.get(name) if name else await self.agents.default_agent()
        if agent is not None:
            return agent
        visible = [a.name for a in await self.agents.list() if not a.hidden]
        message = f'Agent not found: "{name}".' + (f" Available agents: {', '.join(visible)}" if visible else "")
        self._report(session_id, message)
        raise AgentNotFoundError(message)

    async def model_ref(
        self, session_id: str, requested: str | None, agent: AgentInfo, variant: str | None = None
    ) -> ModelRef:
        """The model a new prompt runs on (a requested one must exist), with its variant: the one asked for,
        else the agent's when the agent's own model is the one chosen and it has that variant (OpenCode's rule)."""
        ref = await self._model(session_id, requested, agent)
        own_model = agent.variant is not None and agent.model is not None and agent.model.ref == ref.ref
        if variant is None and own_model and agent.variant in self.model(session_id, ref).info.variants:
            variant = agent.variant
        return attrs.evolve(ref, variant=variant) if variant is not None else ref

    async def _model(self, session_id: str, requested: str | None, agent: AgentInfo) -> ModelRef:
        if requested:
            info = self.model(session_id, parse_model(requested)).info
            return ModelRef(info.provider_id, info.id)
        if agent.model is not None:
            return agent.model
        for message in reversed(await self.store.messages(session_id)):
            if isinstance(message.info, UserMessage):
                return message.info.model
        info = self.models.default_model().info
        return ModelRef(info.provider_id, info.id)

    def model(self, session_id: str, ref: ModelRef) -> llm.LanguageModel:
        try:
            return self.models.resolve(ref.ref)
        except llm.ModelNotFoundError as error:
            self._report(session_id, str(error))
            raise

    def _report(self, session_id: str, message: str) -> None:
        self.bus.publish(SessionError(session_id, MessageError("UnknownError", message)))
