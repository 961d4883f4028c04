"""Which agent and which model a turn uses (reference 1.2 steps 5 and 8, 16.1), with OpenCode's errors.

A prompt names them or inherits them: the agent is the one asked for or the default agent; the model is
the one asked for, else the agent's, else the session's last, else the configured default. A name that
does not resolve is reported on the bus as a session error and raised, naming what is available.

`TurnTargets.resolve` is the one decision, public as `SessionLoop.resolve`: the loop stores a prompt with
what it returns, the server checks a prompt with it, the CLI shows the model a turn will use with it.
"""

from __future__ import annotations

import attrs
from attrs import define, frozen

from strata_core import llm
from strata_core.bus import Bus, SessionError
from strata_core.context.agent import AgentInfo, Agents, parse_model
from strata_core.engine.prompt_input import PromptRequest
from strata_core.errors import StrataError
from strata_core.message import MessageError, ModelRef, UserMessage
from strata_core.session.store import SessionStore


class AgentNotFoundError(StrataError, LookupError):
    pass


@frozen
class TurnChoice:
    """What a prompt asks for; None leaves it to the defaults (see the module's docstring)."""

    session_id: str | None
    """The session the prompt goes to; None: a session not created yet (no history to inherit a model from)."""
    agent: str | None = None
    model: str | None = None
    """`provider/model`."""
    variant: str | None = None

    @classmethod
    def of(cls, request: PromptRequest) -> TurnChoice:
        return cls(request.session_id, request.agent, request.model, request.variant)


@frozen
class ResolvedTurn:
    """The agent and the model a turn runs with."""

    agent: AgentInfo
    model: ModelRef
    """The model as the user message stores it, with the variant."""
    info: llm.ModelInfo
    """The model's description (the resolver knows it: a missing key or an unknown model has already failed)."""

    @property
    def variant(self) -> str | None:
        return self.model.variant


@define
class TurnTargets:
    agents: Agents
    models: llm.ModelResolver
    store: SessionStore
    bus: Bus

    async def resolve(self, choice: TurnChoice) -> ResolvedTurn:
        """The agent, then the model (and variant) of a prompt; what does not resolve is reported and raised."""
        agent = await self.agent(choice.session_id, choice.agent)
        ref = await self.model_ref(choice.session_id, choice.model, agent, choice.variant)
        return ResolvedTurn(agent, ref, self.model(choice.session_id, ref).info)

    async def agent(self, session_id: str | None, name: str | None) -> AgentInfo:
        """The named agent, or the default one; `Agent not found: "x". Available agents: ...` otherwise."""
        agent = await self.agents.get(name) if name else await self.agents.default_agent()
        if agent is not None:
            return agent
        visible = [a.name for a in await self.agents.list() if not a.hidden]
        message = f'Agent not found: "{name}".' + (f" Available agents: {', '.join(visible)}" if visible else "")
        self._report(session_id, message)
        raise AgentNotFoundError(message)

    async def model_ref(
        self, session_id: str | None, requested: str | None, agent: AgentInfo, variant: str | None = None
    ) -> ModelRef:
        """The model a new prompt runs on (a requested one must exist), with its variant: the one asked for,
        else the agent's when the agent's own model is the one chosen and it has that variant (OpenCode's rule)."""
        ref = await self._model(session_id, requested, agent)
        own_model = agent.variant is not None and agent.model is not None and agent.model.ref == ref.ref
        if variant is None and own_model and agent.variant in self.model(session_id, ref).info.variants:
            variant = agent.variant
        return attrs.evolve(ref, variant=variant) if variant is not None else ref

    async def _model(self, session_id: str | None, requested: str | None, agent: AgentInfo) -> ModelRef:
        if requested:
            info = self.model(session_id, parse_model(requested)).info
            return ModelRef(info.provider_id, info.id)
        if agent.model is not None:
            return agent.model
        for message in reversed(await self.store.messages(session_id) if session_id is not None else []):
            if isinstance(message.info, UserMessage):
                return message.info.model
        info = self.models.default_model().info
        return ModelRef(info.provider_id, info.id)

    def model(self, session_id: str | None, ref: ModelRef) -> llm.LanguageModel:
        try:
            return self.models.resolve(ref.ref)
        except llm.ModelNotFoundError as error:
            self._report(session_id, str(error))
            raise

    def _report(self, session_id: str | None, message: str) -> None:
        if session_id is not None:  # no session yet: nobody follows it on the bus, the raise says it all
            self.bus.publish(SessionError(session_id, MessageError("UnknownError", message)))
