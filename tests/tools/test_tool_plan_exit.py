"""The plan_exit tool: OpenCode's name and schema, Strata's words, where it is offered, and what yes and no do."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tool_fakes import DEFAULT_RULES

from strata_core.bus import Bus
from strata_core.clock import FrozenClock
from strata_core.config.paths import StrataPaths
from strata_core.engine.plan_mode_switch import plan_exit_if_offered
from strata_core.ids import Ids
from strata_core.message import MessageTime, MessageWithParts, ModelRef, TextPart, UserMessage
from strata_core.permission.approval import Approver, Refuser, approve_all, asks_someone
from strata_core.permission.bus_approver import BusApprover
from strata_core.permission.flow import PermissionFlow
from strata_core.permission.rules import RejectedError
from strata_core.project import ProjectInfo
from strata_core.session.memory_store import MemorySessionStore
from strata_core.session_info import SessionInfo, SessionTime
from strata_core.tool.builtin.plan_exit import (
    APPROVED_OUTPUT,
    DISMISSED,
    PlanExitTool,
    QuestionDismissedError,
    approval_text,
    plan_exit_offered,
    shown_path,
)
from strata_core.tool.contract import ToolContext
from strata_core.tool.descriptions import tool_description
from strata_core.tool.runner import run_tool

CAPTURE = Path(__file__).parents[1] / "oracle_fixtures" / "captures" / "opencode-plan-exit-yes" / "001.json"
SESSION = SessionInfo(
    id="ses_0123456789abcdefghij",
    project_id="p",
    directory="/",
    title="t",
    version="1",
    time=SessionTime(created=7, updated=7),
)


def recorded_plan_exit() -> dict[str, object]:
    tools = json.loads(CAPTURE.read_text())["tools"]
    found: dict[str, object] = next(t["function"] for t in tools if t["function"]["name"] == "plan_exit")
    return found


class FixedProject:
    def __init__(self, info: ProjectInfo) -> None:
        self._info = info

    async def info(self) -> ProjectInfo:
        return self._info


@pytest.fixture
async def store() -> AsyncIterator[MemorySessionStore]:
    async with MemorySessionStore.open() as opened:
        await opened.put_session(SESSION)
        yield opened


def tool(store: MemorySessionStore, root: Path, approver: Approver) -> PlanExitTool:
    root.mkdir(parents=True, exist_ok=True)
    project = FixedProject(ProjectInfo(root, root, "git", "linux", "id"))
    paths = StrataPaths.from_env({"HOME": str(root / "home")})
    bus = Bus()
    clock = FrozenClock(9)
    return PlanExitTool(PermissionFlow(Ids(clock), approver), store, bus, project, paths, clock, Ids(clock))


def context(root: Path) -> ToolContext:
    info = UserMessage(id="msg_1", session_id=SESSION.id, time=MessageTime(1), agent="plan", model=ModelRef("p", "m"))
    return ToolContext(
        session_id=SESSION.id,
        message_id="msg_2",
        call_id="call_1",
        agent="plan",
        ruleset=DEFAULT_RULES,
        directory=root,
        worktree=root,
        messages=[MessageWithParts(info=info, parts=[])],
    )


def test_the_name_and_schema_are_opencodes_and_the_description_is_strata_own() -> None:
    recorded = recorded_plan_exit()
    assert PlanExitTool.NAME == "plan_exit"
    assert recorded["parameters"] == PlanExitTool.PARAMETERS
    description = tool_description("plan_exit")
    assert "plan" in description and description != recorded["description"]


@pytest.mark.parametrize(
    ("env", "approver", "offered"),
    [
        ({"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}, "bus", True),
        ({"OPENCODE_EXPERIMENTAL": "1"}, "bus", True),
        ({}, "bus", False),
        ({"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}, "refuser", False),
        ({"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}, "approve_all", False),
        ({"STRATA_EXPERIMENTAL_PLAN_MODE": "1", "OPENCODE_CLIENT": "desktop"}, "bus", False),
        ({"STRATA_EXPERIMENTAL_PLAN_MODE": "1", "STRATA_CLIENT": "cli"}, "bus", True),
    ],
)
def test_it_is_offered_with_the_flag_to_a_cli_client_someone_answers(
    env: dict[str, str], approver: str, offered: bool
) -> None:
    approvers: dict[str, Approver] = {"bus": BusApprover(Bus()), "refuser": Refuser(), "approve_all": approve_all}
    assert plan_exit_offered(env, asks_someone(approvers[approver])) is offered


@pytest.mark.anyio
async def test_the_composition_root_gets_none_when_it_is_not_offered(store: MemorySessionStore, tmp_path: Path) -> None:
    built = tool(store, tmp_path, BusApprover(Bus()))
    deps = {"permissions": built.permissions, "store": store, "bus": built.bus, "project": built.project}
    common = {**deps, "paths": built.paths, "clock": built.clock, "ids": built.ids}
    approver = BusApprover(Bus())
    assert plan_exit_if_offered(env={}, approver=approver, **common) is None  # type: ignore[arg-type]
    flag = {"STRATA_EXPERIMENTAL_PLAN_MODE": "1"}
    assert isinstance(plan_exit_if_offered(env=flag, approver=approver, **common), PlanExitTool)  # type: ignore[arg-type]


def test_the_plan_is_shown_relative_to_the_worktree_with_slashes() -> None:
    assert shown_path(Path("/w/.opencode/plans/1-x.md"), Path("/w")) == ".opencode/plans/1-x.md"
    assert shown_path(Path("/home/u/.local/share/strata/plans/1-x.md"), Path("/")) == (
        "home/u/.local/share/strata/plans/1-x.md"
    )


def test_a_no_is_a_refusal_worded_as_opencode_words_it() -> None:
    error = QuestionDismissedError()
    assert isinstance(error, RejectedError) and str(error) == DISMISSED == "The user dismissed this question"


@pytest.mark.anyio
async def test_approving_stores_a_message_for_the_build_agent(store: MemorySessionStore, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outcome = await run_tool(tool(store, root, approve_all), {}, context(root), agent_ruleset=None)
    assert not outcome.is_error and outcome.result.output == APPROVED_OUTPUT
    (handover,) = await store.messages(SESSION.id)
    assert isinstance(handover.info, UserMessage)
    assert (handover.info.agent, handover.info.model, handover.info.time.created) == ("build", ModelRef("p", "m"), 9)
    (part,) = handover.parts
    expected = approval_text(f".strata/plans/7-{SESSION.slug}.md")
    assert isinstance(part, TextPart) and part.synthetic and part.text == expected


@pytest.mark.anyio
async def test_with_nobody_to_answer_the_call_fails_and_stops_the_turn(
    store: MemorySessionStore, tmp_path: Path
) -> None:
    root = tmp_path / "repo"
    outcome = await run_tool(tool(store, root, Refuser()), {}, context(root), agent_ruleset=None)
    assert outcome.is_error and outcome.blocked
    assert outcome.error is not None and "needs approval, but no one is here to approve it" in outcome.error
    assert await store.messages(SESSION.id) == []
