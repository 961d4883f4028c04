"""A session's title, asked of a small model once, from the first thing the user said (reference 10).

Generated only for root sessions that still have their default title and exactly one real (not wholly
synthetic) user message, so it runs once per session however many turns follow. Failures are logged and
otherwise ignored: a session without a title is still a session.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeAlias

from attrs import define, evolve

from strata_core import llm
from strata_core.bus import Bus, TitleUpdated
from strata_core.context.agent import AgentInfo, Agents
from strata_core.engine.parameters import ParameterPolicy
from strata_core.history import to_model_messages
from strata_core.logging import get_logger
from strata_core.message import MessageWithParts, SubtaskPart, TextPart, UserMessage
from strata_core.session.store import SessionStore

log = get_logger(__name__)

TITLE_AGENT = "title"
TITLE_REQUEST = "Generate a title for this conversation:\n"
MAX_TITLE_CHARS = 100
_THINK = re.compile(r"<think>[\s\S]*?</think>\s*")

TitleModel: TypeAlias = Callable[[AgentInfo, llm.LanguageModel], "llm.LanguageModel | None"]
"""Chooses the model a session's title is asked of, from the `title` agent and the model of the user's turn;
None: no title. The runtime's `title_model=`."""


def catalogue_titles(models: llm.ModelResolver) -> TitleModel:
    """OpenCode's choice, the CLI's: the title agent's own model, else the resolver's small model for the
    turn's provider, else the turn's model itself."""

    def choose(agent: AgentInfo, user_model: llm.LanguageModel) -> llm.LanguageModel | None:
        if agent.model is not None:
            return models.resolve(agent.model.ref)
        return models.small_model(user_model.info.provider_id) or user_model

    return choose


def same_model(agent: AgentInfo, user_model: llm.LanguageModel) -> llm.LanguageModel | None:
    """Titles asked of the turn's own model."""
    return user_model


def clean_title(text: str) -> str | None:
    """The first non-empty line outside `<think>` blocks, cut to 100 characters; None when there is none."""
    line = next((line.strip() for line in _THINK.sub("", text).splitlines() if line.strip()), None)
    if line is None:
        return None
    if len(line) > MAX_TITLE_CHARS:
        return line[: MAX_TITLE_CHARS - 3] + "..."
    return line


def is_real_user_message(message: MessageWithParts) -> bool:
    """A user message that the user wrote (not one made only of synthetic text, such as a continue prompt)."""
    if not isinstance(message.info, UserMessage):
        return False
    return not all(isinstance(part, TextPart) and part.synthetic for part in message.parts)


def title_context(messages: Sequence[MessageWithParts], model: llm.ModelInfo) -> list[llm.ModelMessage] | None:
    """What the title model reads: history through the first real user message; None unless there is exactly one."""
    real = [index for index, message in enumerate(messages) if is_real_user_message(message)]
    if len(real) != 1:
        return None
    first = messages[real[0]]
    if first.parts and all(isinstance(part, SubtaskPart) for part in first.parts):
        prompts = "\n".join(part.prompt for part in first.parts if isinstance(part, SubtaskPart))
        return [llm.UserModelMessage((llm.TextContent(prompts),))]
    return to_model_messages(messages[: real[0] + 1], model)


@define
class TitleService:
    """Titles a session once; `title_model` None: never (no model is asked)."""

    store: SessionStore
    bus: Bus
    agents: Agents
    title_model: TitleModel | None
    parameters: ParameterPolicy

    async def generate(self, session_id: str, user_model: llm.LanguageModel) -> str | None:
        """Ask for and store a title when the session still needs one; the new title, or None."""
        try:
            return await self._generate(session_id, user_model)
        except Exception:  # a title is a nicety: never let it disturb the turn
            log.warning("title.failed", session_id=session_id, exc_info=True)
            return None

    async def _generate(self, session_id: str, user_model: llm.LanguageModel) -> str | None:
        if self.title_model is None:
            return None
        session = await self.store.get_session(session_id)
        if session is None or session.parent_id is not None or not session.has_default_title:
            return None
        agent = await self.agents.get(TITLE_AGENT)
        if agent is None:
            return None
        model = self.title_model(agent, user_model)
        if model is None:
            return None
        context = title_context(await self.store.messages(session_id), model.info)
        if context is None:
            return None
        title = clean_title(await self._ask(model, agent, context, session_id))
        if title is None:
            return None
        async with self.store.batch():  # read and written as one: a diff summary may be storing the session too
            current = await self.store.get_session(session_id)
            if current is None or not current.has_default_title:
                return None  # renamed meanwhile: the person's choice wins
            await self.store.put_session(evolve(current, title=title))
        self.bus.publish(TitleUpdated(session_id, title))
        return title

    async def _ask(
        self, model: llm.LanguageModel, agent: AgentInfo, context: list[llm.ModelMessage], session_id: str
    ) -> str:
        params = self.parameters.call_parameters(model.info, agent, session_id=session_id, small=True)
        request = llm.ModelRequest(
            system=(agent.prompt or "",),
            messages=(llm.UserModelMessage((llm.TextContent(TITLE_REQUEST),)), *context),
            temperature=params.temperature,
            top_p=params.top_p,
            max_output_tokens=params.max_output_tokens,
            provider_options=params.provider_options,
            session_id=session_id,
            small=True,
        )
        text: list[str] = []
        async with model.stream(request) as events:
            async for event in events:
                if isinstance(event, llm.TextDelta):
                    text.append(event.text)
                elif isinstance(event, llm.StreamFailed):
                    raise event.error
        return "".join(text)
