"""Test doubles for the tool tests: a permission asker that records, a metadata collector, rule helpers."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from attrs import define, field, frozen

from strata_core.permission.rules import DeniedError, RejectedError, Rule, Ruleset, evaluate, from_config
from strata_core.tool.builtin.skill import SkillLike
from strata_core.tool.builtin.task import AgentLike, SubagentOutcome
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget

# The read rules every OpenCode agent starts with (reference §11.2): `.env` files ask.
DEFAULT_RULES: Ruleset = from_config(
    {"*": "allow", "read": {"*": "allow", "*.env": "ask", "*.env.*": "ask", "*.env.example": "allow"}}
)


@define
class Ask:
    permission: str
    patterns: list[str]
    always: list[str]
    metadata: dict[str, Any]


@define
class Asker:
    """Plays the permission flow: deny rules raise, `ask` outcomes are recorded (and allowed unless rejected).

    `calls` holds every ask a tool made; `asked` only those a person would have been asked.
    """

    rules: Ruleset = DEFAULT_RULES
    reject: set[str] = field(factory=set)
    calls: list[Ask] = field(factory=list)
    asked: list[Ask] = field(factory=list)

    async def __call__(
        self, permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
    ) -> None:
        ask = Ask(permission, list(patterns), list(always), dict(metadata))
        self.calls.append(ask)
        needs_person = False
        for pattern in patterns:
            rule = evaluate(permission, pattern, self.rules)
            if rule.action == "deny":
                raise DeniedError([r for r in self.rules if r.permission in (permission, "*")])
            needs_person = needs_person or rule.action == "ask"
        if needs_person:
            self.asked.append(ask)
            if permission in self.reject:
                raise RejectedError()

    def of(self, permission: str) -> list[Ask]:
        return [ask for ask in self.calls if ask.permission == permission]


@define
class Updates:
    """Collects `update_metadata` calls."""

    seen: list[tuple[str | None, dict[str, Any]]] = field(factory=list)

    def __call__(self, title: str | None, metadata: Mapping[str, Any]) -> None:
        self.seen.append((title, dict(metadata)))


def rules(config: Mapping[str, Any]) -> tuple[Rule, ...]:
    return from_config(dict(config))


class NamedTool:
    """A tool with just a name (and a schema): for registry tests."""

    def __init__(self, name: str, schema: Mapping[str, Any] | None = None) -> None:
        self._name = name
        self._schema = schema or {"type": "object", "properties": {}}

    @property
    def name(self) -> str:
        return self._name

    def parameters(self) -> Mapping[str, Any]:
        return self._schema

    async def description(self, target: ToolTarget) -> str:
        return f"{self._name} for {target.agent_name}"

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return None

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output=f"{self._name} ran")


MakeContext = Callable[..., ToolContext]
"""The `make_ctx` fixture: a tool context for the test project, with fields overridden by keyword."""


# What `builtin_tools` needs to be built when a test is not about skills, agents or subagents.


@frozen
class Agent:
    name: str
    description: str | None
    mode: str


class NoSkills:
    """No skills at all."""

    async def get(self, name: str) -> SkillLike | None:
        return None

    async def available(self, ruleset: Ruleset, /) -> Sequence[SkillLike]:
        return []


class OneAgent:
    async def list(self) -> Sequence[AgentLike]:
        return [Agent("explore", "Looks around.", "subagent")]

    async def get(self, name: str) -> AgentLike | None:
        return None


class NoSubagents:
    async def run(
        self, parent_session_id: str, agent_name: str, description: str, prompt: str, task_id: str | None,
        ctx: ToolContext,
    ) -> SubagentOutcome:  # fmt: skip
        raise AssertionError("not called")
