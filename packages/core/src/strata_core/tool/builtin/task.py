"""The `task` tool: hand a piece of work to a subagent in a child session and return its final answer.

The session machinery lives elsewhere: a `SubagentRunner` creates (or resumes) the child session, with the
rules from `permission.subagent.child_session_rules`, runs the turn loop in it and returns its last text. This
tool checks permission, validates the agent, and frames the answer the way OpenCode does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

from attrs import define, frozen

from strata_core.permission.rules import Rule, evaluate
from strata_core.tool.builtin.base import BuiltinTool, object_schema, string
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult, ToolTarget
from strata_core.tool.descriptions import tool_description

UNDESCRIBED_AGENT = "This subagent should only be called manually by the user."


class AgentLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str | None: ...

    @property
    def mode(self) -> str:
        """`primary`, `subagent` or `all`."""
        ...


class AgentCatalog(Protocol):
    """The configured agents (wired to the Agent service)."""

    async def list(self) -> Sequence[AgentLike]: ...

    async def get(self, name: str) -> AgentLike | None: ...


@frozen
class SubagentOutcome:
    session_id: str
    text: str
    """The child's last text part."""
    model: Mapping[str, str] | None = None
    """The model the subagent answered with, as OpenCode's task metadata has it: `{modelID, providerID}`."""
    error: str | None = None
    """Why the subagent's turn failed (the error on its answer: a model call refused, a limit hit), or None."""


class SubagentRunner(Protocol):
    """Runs a subagent turn in a child of `parent_session_id` (or resumes the session `task_id`)."""

    async def run(
        self,
        parent_session_id: str,
        agent_name: str,
        description: str,
        prompt: str,
        task_id: str | None,
        ctx: ToolContext,
    ) -> SubagentOutcome: ...


def subagent_failure(session_id: str, error: str) -> str:
    """The task's error result when its subagent failed, in OpenCode's words: the parent model learns it got no
    answer, why, and which task_id to resume."""
    return f"Subagent failed (task_id: {session_id}): {error}"


def task_output(session_id: str, text: str) -> str:
    return f'<task id="{session_id}" state="completed">\n<task_result>\n{text}\n</task_result>\n</task>'


def describe_agents(agents: Sequence[AgentLike], caller_rules: Sequence[Rule]) -> str:
    """The subagents the caller may start, by name: not primary-only, and not denied by its `task` rules."""
    usable = sorted(
        (a for a in agents if a.mode != "primary" and evaluate("task", a.name, caller_rules).action != "deny"),
        key=lambda agent: agent.name,
    )
    lines = [f"- {agent.name}: {agent.description or UNDESCRIBED_AGENT}" for agent in usable]
    return "\n".join(["Available agent types and the tools they have access to:", *lines])


@define
class TaskTool(BuiltinTool):
    NAME: ClassVar[str] = "task"
    PARAMETERS: ClassVar[JSONSchema] = object_schema(
        {
            "description": string("A three-to-five word summary of the task."),
            "prompt": string("Everything the subagent needs to know to do the task on its own."),
            "subagent_type": string("Which subagent to use (one of the listed agent types)."),
            "task_id": string("Only to continue an earlier task: the task id it returned."),
            "command": string("The slash command that started this task, if any."),
        },
        ["description", "prompt", "subagent_type"],
    )

    agents: AgentCatalog
    runner: SubagentRunner

    async def description(self, target: ToolTarget) -> str:
        return tool_description(self.NAME) + "\n" + describe_agents(await self.agents.list(), target.ruleset)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolResult:
        description, agent_name = str(args["description"]), str(args["subagent_type"])
        if not ctx.extra.get("bypass_agent_check"):
            metadata = {"description": description, "subagent_type": agent_name}
            await ctx.ask("task", [agent_name], ["*"], metadata)
        agent = await self.agents.get(agent_name)
        if agent is None:
            raise ToolFailure(f"Unknown agent type: {agent_name} is not a valid agent type")
        task_id = args.get("task_id") or None
        outcome = await self.runner.run(ctx.session_id, agent.name, description, str(args["prompt"]), task_id, ctx)
        if outcome.error is not None:
            raise ToolFailure(subagent_failure(outcome.session_id, outcome.error))
        return ToolResult(
            output=task_output(outcome.session_id, outcome.text),
            title=description,
            metadata={
                "sessionId": outcome.session_id,
                "parentSessionId": ctx.session_id,
                **({"model": dict(outcome.model)} if outcome.model else {}),
            },
        )
