"""The request for one step of a turn: system prompt, history as the model sees it, tools, parameters.

The system prompt comes from the SystemPrompt service's `build` (which gathers its own pieces concurrently),
run in one task group with the tool resolution and the history conversion. Reminders and queued-message
wrapping are applied to an in-memory copy of the history; stored messages are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import anyio
from attrs import define, field, frozen

from strata_core import llm
from strata_core.context.agent import AgentInfo
from strata_core.context.instruction_urls import UrlCache
from strata_core.engine.parameters import ParameterPolicy
from strata_core.history import to_model_messages
from strata_core.ids import Ids
from strata_core.message import MessageWithParts, UserMessage
from strata_core.permission.rules import Ruleset, from_stored, merge
from strata_core.prompt.reminders import apply_reminders, max_steps_prefill, wrap_queued_user_messages
from strata_core.prompt.system import AssembledSystemPrompt, SystemPrompt, SystemPromptRequest
from strata_core.secret_outputs import SecretOutputs
from strata_core.session_info import SessionInfo
from strata_core.tool.builtin.structured_output import StructuredOutputTool
from strata_core.tool.contract import Tool, ToolTarget
from strata_core.tool.registry import ResolvedTool, ToolRegistry, tool_map


def effective_ruleset(agent: AgentInfo, session: SessionInfo) -> Ruleset:
    """The rules a tool call is judged by: the agent's, then the session's (which win)."""
    return merge(agent.permission, from_stored(session.permission or ()))


@define
class ConvertedHistory:
    """Each stored message's model messages, kept across the steps of one run of the loop.

    A step's history is the previous step's plus that step's answer, so converting every message again
    made each step cost more than the last; here each message object is converted once. An entry is only
    reused for the very object it was made from (a reloaded or reminded copy is converted afresh) and for
    the same model, since conversion depends on it. When a step's history starts with the previous step's
    messages (the same objects, or equal ones), their result is taken whole and only the rest is looked up,
    so a step does not walk the whole history either.
    """

    _entries: dict[str, tuple[MessageWithParts, str, list[llm.ModelMessage]]] = field(factory=dict)
    _last: tuple[str, list[MessageWithParts], list[llm.ModelMessage]] | None = None
    """The last call's model, history and result."""

    def convert(
        self, history: Sequence[MessageWithParts], model: llm.ModelInfo, secrets: SecretOutputs | None = None
    ) -> list[llm.ModelMessage]:
        ref = model.ref
        out: list[llm.ModelMessage] = []
        rest = history
        last = self._last
        if last is not None and last[0] == ref and len(last[1]) <= len(history):
            before = len(last[1])
            if history[:before] == last[1]:  # identity first, element by element, in C
                out, rest = list(last[2]), history[before:]
        for message in rest:
            entry = self._entries.get(message.info.id)
            if entry is None or entry[0] is not message or entry[1] != ref:
                entry = (message, ref, to_model_messages([message], model, secrets=secrets))
                self._entries[message.info.id] = entry
            out += entry[2]
        self._last = (ref, list(history), out)
        return list(out)


@frozen
class StepState:
    """Where the turn stands when a step's request is built."""

    session: SessionInfo
    agent: AgentInfo
    model: llm.LanguageModel
    user: UserMessage
    history: Sequence[MessageWithParts]
    """The filtered history (`filter_compacted`), chronological."""
    step: int
    last_finished_id: str | None
    is_last_step: bool
    converted: ConvertedHistory = field(factory=ConvertedHistory)
    stored_reminders: bool = False
    """Experimental plan mode is on: its reminders are in the stored history, the in-memory ones are not added."""
    urls: UrlCache | None = None
    """The run's instruction URL answers (the loop makes one per run): each URL is fetched once a turn."""


@frozen
class StepRequest:
    request: llm.ModelRequest
    tools: dict[str, Tool]
    structured: StructuredOutputTool | None
    """The StructuredOutput tool of a json_schema turn: it holds the answer once the model calls it."""


@define
class _Gathered:
    system: AssembledSystemPrompt | None = None
    tools: list[ResolvedTool] = field(factory=list)
    messages: list[llm.ModelMessage] = field(factory=list)


_ToolsKey = tuple[str, Ruleset, str, frozenset[tuple[str, bool]], tuple[int, ...]]
_TOOL_CACHE_SIZE = 32


@define
class TurnRequestBuilder:
    system_prompt: SystemPrompt
    registry: ToolRegistry
    parameters: ParameterPolicy
    ids: Ids
    secrets: SecretOutputs = field(factory=SecretOutputs)
    """The clear outputs of secret files this process showed, sent where the history stores a placeholder."""
    _tools: dict[_ToolsKey, list[ResolvedTool]] = field(factory=dict, init=False, repr=False)
    """Resolved tool sets by caller: their descriptions (agents for task, skills for skill) come from
    services that load once, so a turn's steps reuse them instead of describing every tool again; the
    sources' revision is part of the key, so a server that failed or listed new tools is seen at once."""

    async def build(self, state: StepState) -> StepRequest:
        format_ = state.user.format
        json_schema = format_ is not None and format_.type == "json_schema"
        structured = StructuredOutputTool(format_.schema or {}) if format_ is not None and json_schema else None
        history = _reminded(state, self.ids)
        model = state.model.info
        target = ToolTarget(state.agent.name, effective_ruleset(state.agent, state.session), model)
        found = _Gathered()

        async def system() -> None:
            # The MCP servers' instructions are one of the prompt's inputs; they are read from the
            # connected servers (no round trip), so the build waits only for that.
            mcp = await self.registry.system_blocks(target.ruleset)
            request = SystemPromptRequest(state.agent, model, state.user.system, json_schema, mcp, state.urls)
            found.system = await self.system_prompt.build(request)

        async def tools() -> None:
            found.tools = await self._resolve_tools(target, state.user.tools, structured)

        async def messages() -> None:
            found.messages = state.converted.convert(history, model, self.secrets)

        async with anyio.create_task_group() as group:
            for gather in (system, tools, messages):
                group.start_soon(gather)
        assert found.system is not None
        request = self._request(state, found.system.text, found, json_schema)
        return StepRequest(request, tool_map(found.tools), structured)

    async def _resolve_tools(
        self, target: ToolTarget, user_tools: Mapping[str, bool] | None, structured: StructuredOutputTool | None
    ) -> list[ResolvedTool]:
        if structured is not None:  # a fresh tool per step: it holds that step's answer
            return await self.registry.resolve(target, user_tools=user_tools, extra=[structured])
        switches = frozenset((user_tools or {}).items())
        key = (target.agent_name, target.ruleset, target.model.ref, switches, self.registry.sources_revision())
        cached = self._tools.get(key)
        if cached is None:
            if len(self._tools) >= _TOOL_CACHE_SIZE:
                self._tools.clear()
            cached = self._tools[key] = await self.registry.resolve(target, user_tools=user_tools)
        return cached

    def _request(self, state: StepState, system: str, found: _Gathered, json_schema: bool) -> llm.ModelRequest:
        session = state.session
        variant = state.user.model.variant
        params = self.parameters.call_parameters(state.model.info, state.agent, session_id=session.id, variant=variant)
        # Past the step limit the model is told to wrap up, as an assistant prefill; its tools stay (OpenCode).
        prefill = (llm.AssistantModelMessage((llm.TextContent(max_steps_prefill()),)),) if state.is_last_step else ()
        return llm.ModelRequest(
            system=(system,),
            messages=(*found.messages, *prefill),
            tools=tuple(item.definition for item in found.tools),
            tool_choice="required" if json_schema else None,
            max_output_tokens=params.max_output_tokens,
            temperature=params.temperature,
            top_p=params.top_p,
            provider_options=params.provider_options,
            headers={"x-parent-session-id": session.parent_id} if session.parent_id else {},
            session_id=session.id,
        )


def _reminded(state: StepState, ids: Ids) -> list[MessageWithParts]:
    history = list(state.history) if state.stored_reminders else apply_reminders(state.history, state.agent.name, ids)
    if state.step > 1 and state.last_finished_id is not None:
        history = wrap_queued_user_messages(history, state.last_finished_id)
    return history
