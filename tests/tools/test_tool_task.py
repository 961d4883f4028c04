"""The task tool: which subagents it offers, how it runs one, and the rules a child session starts with."""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest
from attrs import define, field, frozen
from tool_fakes import Asker, MakeContext, rules

from strata_core.llm import ModelInfo
from strata_core.permission.rules import Rule, Ruleset, evaluate, merge
from strata_core.permission.subagent import child_session_rules
from strata_core.tool.builtin.task import SubagentOutcome, TaskTool, describe_agents
from strata_core.tool.contract import ToolContext, ToolFailure, ToolTarget

pytestmark = pytest.mark.anyio


@frozen
class Agent:
    name: str
    description: str | None
    mode: str


AGENTS = (
    Agent("build", "The default agent.", "primary"),
    Agent("general", "General-purpose agent for research.", "subagent"),
    Agent("explore", "Fast agent for exploring codebases.", "subagent"),
    Agent("reviewer", None, "all"),
)


@define
class Catalog:
    agents: Sequence[Agent] = AGENTS

    async def list(self) -> Sequence[Agent]:
        return self.agents

    async def get(self, name: str) -> Agent | None:
        return next((a for a in self.agents if a.name == name), None)


@define
class Runner:
    calls: list[tuple[str, str, str, str, str | None]] = field(factory=list)
    hang: bool = False
    cancelled: bool = False

    async def run(
        self, parent_session_id: str, agent_name: str, description: str, prompt: str, task_id: str | None,
        ctx: ToolContext,
    ) -> SubagentOutcome:  # fmt: skip
        self.calls.append((parent_session_id, agent_name, description, prompt, task_id))
        if self.hang:
            try:
                await anyio.sleep_forever()
            except anyio.get_cancelled_exc_class():
                self.cancelled = True
                raise
        return SubagentOutcome(task_id or "ses_child", "The notes list two items.")


def target(ruleset: Ruleset) -> ToolTarget:
    return ToolTarget("build", ruleset, ModelInfo("mock", "mock-model"))


async def test_the_description_lists_usable_subagents_sorted() -> None:
    text = await TaskTool(agents=Catalog(), runner=Runner()).description(target(rules({"*": "allow"})))
    assert text.endswith(
        "\nAvailable agent types and the tools they have access to:\n"
        "- explore: Fast agent for exploring codebases.\n"
        "- general: General-purpose agent for research.\n"
        "- reviewer: This subagent should only be called manually by the user."
    )


def test_agents_the_caller_may_not_start_are_left_out() -> None:
    text = describe_agents(AGENTS, rules({"*": "allow", "task": {"*": "allow", "general": "deny"}}))
    assert "- general" not in text and "- explore" in text and "- build" not in text


async def test_a_task_runs_the_subagent_and_frames_its_answer(ctx: ToolContext, asker: Asker) -> None:
    runner = Runner()
    tool = TaskTool(agents=Catalog(), runner=runner)
    args = {"description": "Read the notes", "prompt": "Summarise notes.txt", "subagent_type": "explore"}
    result = await tool.execute(args, ctx)
    assert result.output == (
        '<task id="ses_child" state="completed">\n<task_result>\nThe notes list two items.\n</task_result>\n</task>'
    )
    assert result.title == "Read the notes" and result.metadata["sessionId"] == "ses_child"
    assert runner.calls == [("ses_test", "explore", "Read the notes", "Summarise notes.txt", None)]
    (ask,) = asker.of("task")
    assert ask.patterns == ["explore"] and ask.always == ["*"]
    assert ask.metadata == {"description": "Read the notes", "subagent_type": "explore"}


async def test_a_task_id_resumes_the_same_session(ctx: ToolContext) -> None:
    runner = Runner()
    args = {"description": "d", "prompt": "p", "subagent_type": "general", "task_id": "ses_earlier"}
    result = await TaskTool(agents=Catalog(), runner=runner).execute(args, ctx)
    assert result.output.startswith('<task id="ses_earlier"') and runner.calls[0][4] == "ses_earlier"


async def test_unknown_agents_are_an_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolFailure, match=r"^Unknown agent type: nobody is not a valid agent type$"):
        await TaskTool(agents=Catalog(), runner=Runner()).execute(
            {"description": "d", "prompt": "p", "subagent_type": "nobody"}, ctx
        )


async def test_a_task_the_user_started_skips_the_permission_ask(make_ctx: MakeContext, asker: Asker) -> None:
    ctx = make_ctx(extra={"bypass_agent_check": True})
    await TaskTool(agents=Catalog(), runner=Runner()).execute(
        {"description": "d", "prompt": "p", "subagent_type": "general"}, ctx
    )
    assert asker.of("task") == []


async def test_aborting_the_task_cancels_the_child(ctx: ToolContext) -> None:
    runner = Runner(hang=True)
    tool = TaskTool(agents=Catalog(), runner=runner)
    with anyio.move_on_after(0.2):
        await tool.execute({"description": "d", "prompt": "p", "subagent_type": "general"}, ctx)
    assert runner.cancelled


# ----------------------------------------------------------------------------------- child session rules
# The cases of OpenCode's test/agent/subagent-permissions.test.ts.

PARENT_SESSION = (Rule("external_directory", "*", "deny"), Rule("external_directory", "/tmp/test", "allow"))
PARENT_AGENT = (
    Rule("edit", "*", "deny"),
    Rule("edit", ".opencode/plans/*", "allow"),
    Rule("todowrite", "*", "allow"),
    Rule("task", "*", "allow"),
)
SUBAGENT = (
    Rule("edit", "*", "deny"),
    Rule("edit", ".opencode/plan/*", "deny"),
    Rule("edit", ".opencode/research/*", "allow"),
    Rule("todowrite", "*", "allow"),
    Rule("task", "*", "deny"),
)


def derived(subagent: Sequence[Rule] = SUBAGENT, primary_tools: Sequence[str] = ()) -> Ruleset:
    return child_session_rules(PARENT_AGENT, PARENT_SESSION, subagent, primary_tools)


def of(ruleset: Ruleset, permission: str) -> list[Rule]:
    return [rule for rule in ruleset if rule.permission == permission]


def test_todowrite_and_task_are_left_alone_when_the_subagent_has_rules_for_them() -> None:
    assert of(derived(), "todowrite") == [] and of(derived(), "task") == []


def test_todowrite_and_task_default_to_denied() -> None:
    bare = [r for r in SUBAGENT if r.permission not in ("todowrite", "task")]
    assert of(derived(bare), "todowrite") == [Rule("todowrite", "*", "deny")]
    assert of(derived(bare), "task") == [Rule("task", "*", "deny")]


def test_the_parent_agents_edit_deny_is_skipped_when_the_subagent_has_it_too() -> None:
    assert of(derived(), "edit") == []


def test_the_parent_agents_edit_deny_is_inherited_when_the_subagent_lacks_it() -> None:
    without_star = [r for r in SUBAGENT if not (r.permission == "edit" and r.pattern == "*")]
    assert of(derived(without_star), "edit") == [Rule("edit", "*", "deny")]


def test_the_parent_sessions_external_directory_and_deny_rules_carry_over_first_after_edits() -> None:
    result = child_session_rules(
        PARENT_AGENT, (*PARENT_SESSION, Rule("bash", "rm *", "deny"), Rule("read", "*", "allow")), []
    )
    assert result == (
        Rule("edit", "*", "deny"),
        *PARENT_SESSION,
        Rule("bash", "rm *", "deny"),
        Rule("todowrite", "*", "deny"),
        Rule("task", "*", "deny"),
    )


def test_primary_only_tools_are_denied_to_the_child() -> None:
    assert of(derived(primary_tools=["question"]), "question") == [Rule("question", "*", "deny")]


def test_a_subagent_of_plan_mode_still_cannot_edit() -> None:
    plan = rules({"*": "allow", "edit": {"*": "deny", ".opencode/plans/*.md": "allow"}})
    explore = rules({"*": "deny", "read": "allow", "grep": "allow", "edit": "allow"})
    child = merge(explore, child_session_rules(plan, (), explore))
    assert evaluate("edit", "src/app.py", child).action == "deny"
