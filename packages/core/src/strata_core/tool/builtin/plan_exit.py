"""The `plan_exit` tool of experimental plan mode: the user approves the plan, and the build agent takes over.

What OpenCode 1.18.33 does (tests/oracle_fixtures/captures/opencode-plan-exit-*): the tool takes no
arguments and asks the user whether to switch to the build agent. On yes it stores a new user message for
`build` (the last user message's model) whose one synthetic text says the plan at its worktree-relative
path is approved, and returns; the loop's next step answers that message as build, which adds the
build-switch reminder. On no the call fails with "The user dismissed this question" and the turn stops.

Strata has no question tool, so it asks through the permission flow: a `plan_exit` request whose pattern is
the plan's path and whose metadata holds the question. "once" or "always" is yes, "reject" is no, and a
reject with feedback reaches the model while the turn goes on, so it can revise the plan. The rule is
always `ask` here: the plan agent's `plan_exit: allow` only says the tool is offered to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, ClassVar

import anyio
from attrs import define

from strata_core.bus import Bus
from strata_core.clock import Clock
from strata_core.config.paths import StrataPaths
from strata_core.context.plan_file import plan_file
from strata_core.ids import Ids
from strata_core.message import (
    MessageTime,
    MessageWithParts,
    ModelRef,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    UserMessage,
)
from strata_core.permission.flow import Permission
from strata_core.permission.rules import PermissionRefusedError, RejectedError, Rule
from strata_core.project import Project
from strata_core.prompt.reminders import BUILD_AGENT, experimental_plan_mode
from strata_core.session.store import SessionStore
from strata_core.tool.builtin.base import SCHEMA_DIALECT, BuiltinTool
from strata_core.tool.contract import JSONSchema, ToolContext, ToolFailure, ToolResult

NAME = "plan_exit"
# Interface strings of OpenCode 1.18.33: what the model reads after the call, and the approving message.
APPROVED_OUTPUT = "User approved switching to build agent. Wait for further instructions."
APPROVED_TITLE = "Switching to build agent"
DISMISSED = "The user dismissed this question"
ALWAYS_ASK = (Rule(NAME, "*", "ask"),)


def approval_text(plan: str) -> str:
    """The synthetic text of the user message that hands the plan to the build agent."""
    return f"The plan at {plan} has been approved, you can now edit files. Execute the plan"


def question(plan: str) -> dict[str, Any]:
    """What a renderer shows (the permission request's metadata): OpenCode's question fields, Strata's words."""
    return {
        "header": "Build Agent",
        "question": f"The plan at {plan} is ready. Switch to the build agent and start implementing it?",
        "options": [
            {"label": "Yes", "description": "Switch to the build agent, which carries out the plan"},
            {"label": "No", "description": "Stay in plan mode and keep refining the plan"},
        ],
    }


class QuestionDismissedError(RejectedError):
    """The user answered no: a refusal (the turn stops), worded as OpenCode words a dismissed question."""

    def __init__(self) -> None:
        PermissionRefusedError.__init__(self, DISMISSED)


def shown_path(plan: Path, worktree: Path) -> str:
    """The plan's path relative to the worktree, with `/` separators (as OpenCode shows it)."""
    return PurePath(os.path.relpath(plan, worktree)).as_posix()


def last_model(messages: Sequence[MessageWithParts]) -> ModelRef | None:
    return next((m.info.model for m in reversed(messages) if isinstance(m.info, UserMessage)), None)


@define
class PlanExitTool(BuiltinTool):
    NAME: ClassVar[str] = NAME
    PARAMETERS: ClassVar[JSONSchema] = {"$schema": SCHEMA_DIALECT, "type": "object", "properties": {}}

    permissions: Permission
    store: SessionStore
    bus: Bus
    project: Project
    paths: StrataPaths
    clock: Clock
    ids: Ids

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        plan = shown_path(await self._plan_file(ctx.session_id), ctx.worktree)
        try:
            await self.permissions.ask(
                ctx.session_id,
                NAME,
                [plan],
                [],
                question(plan),
                ALWAYS_ASK,
                message_id=ctx.message_id or None,
                call_id=ctx.call_id or None,
            )
        except RejectedError as error:
            raise QuestionDismissedError() from error
        await self._hand_over(ctx, plan)
        return ToolResult(output=APPROVED_OUTPUT, title=APPROVED_TITLE)

    async def _plan_file(self, session_id: str) -> Path:
        session = await self.store.get_session(session_id)
        if session is None:
            raise ToolFailure(f"Session not found: {session_id}")
        project = await self.project.info()
        return await anyio.to_thread.run_sync(plan_file, project, self.paths, session)

    async def _hand_over(self, ctx: ToolContext, plan: str) -> None:
        model = last_model(ctx.messages)
        if model is None and ctx.model is not None:
            model = ModelRef(ctx.model.provider_id, ctx.model.id)
        if model is None:
            raise ToolFailure("No model to hand the plan to: the session has no user message")
        info = UserMessage(
            id=self.ids.new("msg"),
            session_id=ctx.session_id,
            time=MessageTime(self.clock.now_ms()),
            agent=BUILD_AGENT,
            model=model,
        )
        part = TextPart(
            id=self.ids.new("prt"),
            session_id=ctx.session_id,
            message_id=info.id,
            text=approval_text(plan),
            synthetic=True,
        )
        async with self.store.batch():  # never a handing-over message without its text
            await self.store.put_message(info)
            await self.store.put_part(part)
        self.bus.message_updated(info)
        self.bus.part_updated(part)


def approved(answer: MessageWithParts) -> bool:
    """Whether this answer's plan_exit call handed over to build (it stored a user message the loop must read)."""
    return any(
        isinstance(part, ToolPart) and part.tool == NAME and isinstance(part.state, ToolStateCompleted)
        for part in answer.parts
    )


def plan_exit_offered(env: Mapping[str, str], someone_answers: bool) -> bool:
    """Whether plan_exit is registered: plan mode is on, the client is `cli` and someone can answer.

    OpenCode registers it for the `cli` client only (`OPENCODE_CLIENT`, default `cli`; Strata also reads
    `STRATA_CLIENT`), and `opencode run` denies it for its sessions since nobody could answer there; Strata
    leaves it out whenever the approver is one of the library's own (`approval.asks_someone`) for the same
    reason: refusing everything, or approving everything unasked.
    """
    client = env.get("STRATA_CLIENT") or env.get("OPENCODE_CLIENT") or "cli"
    return experimental_plan_mode(env) and client == "cli" and someone_answers
