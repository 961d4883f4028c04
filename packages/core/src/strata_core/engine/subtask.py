"""A subtask the user started directly (reference 1.5): the task tool runs without a model call in the parent.

The parent gets an assistant message holding one `task` tool call, finished as "tool-calls" so the loop
then lets the model read the result. A subtask from a command is followed by a synthetic user message
asking the model to summarise the result and carry on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
from attrs import define, evolve

from strata_core.bus import Bus
from strata_core.clock import Clock
from strata_core.engine.part_writer import PartWriter
from strata_core.engine.tool_calls import ToolExecutor
from strata_core.ids import Ids
from strata_core.message import (
    ABORTED_ERROR,
    ABORTED_MESSAGE,
    AssistantMessage,
    MessageError,
    MessageTime,
    PartTime,
    PathInfo,
    SubtaskPart,
    TextPart,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
    UserMessage,
)
from strata_core.permission.rules import Ruleset
from strata_core.session.store import SessionStore
from strata_core.tool.contract import Tool, ToolContext

TASK_TOOL = "task"
COMMAND_FOLLOW_UP = "Summarize the task tool output above and continue with your task."
CANCELLED = "Cancelled"


def task_input(task: SubtaskPart) -> dict[str, Any]:
    args: dict[str, Any] = {"prompt": task.prompt, "description": task.description, "subagent_type": task.agent}
    if task.command:
        args["command"] = task.command
    return args


@define
class SubtaskRunner:
    store: SessionStore
    bus: Bus
    execute_tool: ToolExecutor
    clock: Clock
    ids: Ids

    async def run(
        self,
        task: SubtaskPart,
        user: UserMessage,
        tools: Mapping[str, Tool],
        context: ToolContext,
        path: PathInfo,
        agent_ruleset: Ruleset,
    ) -> None:
        model = task.model or user.model
        message = AssistantMessage.answering(user, task.agent, model, path, self.ids.new("msg"), self.clock.now_ms())
        write = PartWriter(self.store, self.bus, message, self.clock, self.ids)
        running = ToolStateRunning(input=task_input(task), time=PartTime(self.clock.now_ms()))
        part = ToolPart(**write.new_part_ids(), call_id=self.ids.new("tool"), tool=TASK_TOOL, state=running)
        try:  # from the first write on: a cancel at any point still leaves the call recorded as cancelled
            await write.message_info()
            await write.part(part)
            ctx = evolve(context, message_id=message.id, call_id=part.call_id, extra={"bypass_agent_check": True})
            called = await self.execute_tool(tools, TASK_TOOL, running.input, ctx, agent_ruleset=agent_ruleset)
            outcome = called.outcome
            end = self.clock.now_ms()
            if outcome.is_error:
                error = f"Tool execution failed: {outcome.error}" if outcome.error else "Tool execution failed"
                part.state = ToolStateError(input=running.input, error=error, time=PartTime(running.time.start, end))
            else:
                result = outcome.result
                part.state = ToolStateCompleted(
                    input=running.input,
                    output=result.output,
                    title=result.title or TASK_TOOL,
                    metadata=dict(result.metadata),
                    time=ToolCompletedTime(start=running.time.start, end=end),
                )
        finally:
            with anyio.CancelScope(shield=True):
                await self._finish(write, part, running)
        if task.command:
            await self._follow_up(user)

    async def _finish(self, write: PartWriter, part: ToolPart, running: ToolStateRunning) -> None:
        end = self.clock.now_ms()
        if part.state is running:  # cancelled before an outcome
            part.state = ToolStateError(
                input=running.input,
                error=CANCELLED,
                time=PartTime(running.time.start, end),
                metadata={"interrupted": True},
            )
            write.message.error = MessageError(ABORTED_ERROR, ABORTED_MESSAGE)
        await write.part(part)
        write.message.finish = "tool-calls"
        write.message.time.completed = end
        await write.message_info()

    async def _follow_up(self, user: UserMessage) -> None:
        created = MessageTime(self.clock.now_ms())
        info = evolve(user, id=self.ids.new("msg"), time=created, format=None, system=None, tools=None)
        part = TextPart(
            id=self.ids.new("prt"),
            session_id=info.session_id,
            message_id=info.id,
            text=COMMAND_FOLLOW_UP,
            synthetic=True,
        )
        await self.store.put_message(info)
        await self.store.put_part(part)
        self.bus.message_updated(info)
        self.bus.part_updated(part)
