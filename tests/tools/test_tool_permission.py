"""The runner enforces permission for every tool: the tool's key and patterns, the agent's rules, the flow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from tool_fakes import Asker, MakeContext, NoSkills, NoSubagents, OneAgent, rules

from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.permission.flow import PermissionFlow
from strata_core.permission.rules import NO_RESPONDER, no_approver_reason
from strata_core.tool.builtin.defaults import builtin_tools
from strata_core.tool.builtin.todowrite import TodoWriteTool
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.runner import run_tool
from strata_core.tool.truncation import Truncation

pytestmark = pytest.mark.anyio

DENIED = "The user has specified a rule which prevents you from using this specific tool call."


class Guarded:
    """A tool needing the permission `key` for the patterns in its `paths` argument; counts its runs."""

    def __init__(self, name: str = "my_tool", key: str | None = None) -> None:
        self._name = name
        self._key = key or name
        self.ran = 0

    @property
    def name(self) -> str:
        return self._name

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}

    async def description(self, target: ToolTarget) -> str:
        return "guarded"

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        return ToolPermission(self._key, tuple(args.get("paths", ["*"])))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        self.ran += 1
        return ToolResult(output="ran")


def through_flow(make_ctx: MakeContext, config: Mapping[str, Any]) -> ToolContext:
    """A context whose asks go through a real `PermissionFlow` over `config`'s rules (and no approver), as a
    runtime's do."""
    flow, ruleset = PermissionFlow(Ids(SystemClock())), rules(config)

    async def ask(permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]) -> None:
        await flow.ask("ses_test", permission, patterns, always, metadata, ruleset)

    return make_ctx(ruleset=ruleset, ask=ask)


async def test_without_a_responder_a_tool_needing_permission_is_refused_and_never_runs(
    make_ctx: MakeContext, truncation: Truncation
) -> None:
    ctx = make_ctx(ask=attrs.fields(ToolContext).ask.default)  # the default: no responder
    tool = Guarded()
    outcome = await run_tool(tool, {}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.is_error and outcome.blocked
    assert outcome.error == f"Permission 'my_tool' for * needs approval, but {NO_RESPONDER}"
    assert tool.ran == 0


async def test_a_context_built_without_ask_refuses_rather_than_allows(project: Path) -> None:
    ctx = ToolContext(
        session_id="s", message_id="m", call_id="c", agent="build", ruleset=rules({"*": "allow"}),
        directory=project, worktree=project,
    )  # fmt: skip
    with pytest.raises(Exception, match="built without a responder"):
        await ctx.ask("read", ["notes.txt"], ["*"], {})


@pytest.mark.parametrize(
    ("config", "runs"),
    [
        ({"*": "allow"}, True),
        ({"*": "allow", "my_tool": "deny"}, False),
        ({"*": "allow", "my_*": "deny"}, False),
        ({"*": "deny", "my_tool": "allow"}, True),
        # The last matching rule wins; a more specific rule earlier does not.
        ({"my_tool": "allow", "my_*": "deny"}, False),
        ({"my_*": "deny", "my_tool": "allow"}, True),
        ({"*": "allow", "other": "deny"}, True),
    ],
)
async def test_allow_runs_and_deny_refuses_with_opencodes_message(
    config: dict[str, Any], runs: bool, make_ctx: MakeContext, truncation: Truncation
) -> None:
    tool = Guarded()
    ctx = through_flow(make_ctx, config)
    outcome = await run_tool(tool, {}, ctx, agent_ruleset=None, truncation=truncation)
    assert tool.ran == (1 if runs else 0)
    assert outcome.is_error is not runs
    if not runs:
        assert outcome.error is not None and outcome.error.startswith(DENIED)
        assert not outcome.blocked  # the model can act on a configured deny


@pytest.mark.parametrize("config", [{"*": "allow", "my_tool": "ask"}, {}])
async def test_ask_with_nobody_to_answer_fails_fast_and_stops_the_turn(
    config: dict[str, Any], make_ctx: MakeContext, truncation: Truncation
) -> None:
    tool = Guarded()
    ctx = through_flow(make_ctx, config)
    outcome = await run_tool(tool, {"paths": ["a.txt"]}, ctx, agent_ruleset=None, truncation=truncation)
    assert outcome.error == f"Permission 'my_tool' for a.txt needs approval, but {no_approver_reason()}"
    assert outcome.blocked and tool.ran == 0


async def test_a_declared_key_and_patterns_are_what_the_rules_see(
    make_ctx: MakeContext, truncation: Truncation
) -> None:
    tool = Guarded(name="copy_files", key="files")
    ctx = through_flow(make_ctx, {"*": "deny", "files": {"*": "allow", "secret/*": "deny"}})
    allowed = await run_tool(tool, {"paths": ["src/a.py"]}, ctx, agent_ruleset=None, truncation=truncation)
    denied = await run_tool(tool, {"paths": ["src/a.py", "secret/key"]}, ctx, agent_ruleset=None, truncation=truncation)
    assert not allowed.is_error
    assert denied.error is not None and denied.error.startswith(DENIED)
    assert tool.ran == 1


async def test_invalid_arguments_are_reported_before_anyone_is_asked(
    make_ctx: MakeContext, asker: Asker, truncation: Truncation
) -> None:
    tool = Guarded()
    outcome = await run_tool(tool, {"paths": "not a list"}, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert outcome.is_error and "invalid arguments" in (outcome.error or "")
    assert asker.calls == [] and tool.ran == 0


def test_every_builtin_asks_for_itself_so_the_runner_adds_no_second_ask(tmp_path: Path) -> None:
    tools = builtin_tools(
        truncation=Truncation(tmp_path), skills=NoSkills(), agents=OneAgent(), subagents=NoSubagents()
    )
    assert {tool.name: tool.permission({}) for tool in tools} == {tool.name: None for tool in tools}


async def test_a_builtin_run_through_the_runner_is_asked_exactly_once(
    make_ctx: MakeContext, asker: Asker, truncation: Truncation
) -> None:
    asker.rules = rules({"*": "allow", "todowrite": "ask"})
    todos = [{"content": "a", "status": "pending", "priority": "high"}]
    outcome = await run_tool(TodoWriteTool(), {"todos": todos}, make_ctx(), agent_ruleset=None, truncation=truncation)
    assert not outcome.is_error
    assert [(a.permission, a.patterns) for a in asker.calls] == [("todowrite", ["*"])]
    assert len(asker.asked) == 1
