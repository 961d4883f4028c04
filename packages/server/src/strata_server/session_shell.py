"""A command the user runs in a session (`POST /session/{id}/shell`, the TUI's `!cmd`), as OpenCode's session shell.

No model is called. The session gets a user message (a synthetic text saying the user ran a command) and an
assistant message holding one `bash` tool part, which the turn after it reads like any other call. The command
runs through Strata's bash tool, so in its sandbox, with its scrubbed environment, output limits and
truncation; it asks no permission (the user typed it, as OpenCode's shell does not ask either) and its
output streams to the event subscribers as the part's metadata. The events are OpenCode's for a shell: status
busy, the user message and its part, the assistant message, the part running (with each output update), the
assistant message completed, the part completed, status idle.

While it runs, the session is busy: a prompt or another shell is refused (409), and `abort` ends the command,
which stores the call as aborted with the output so far.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from attrs import define, field

from strata_core.bus import SessionStatus
from strata_core.context import AgentInfo
from strata_core.engine import TurnChoice, check_message_id
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    MessageError,
    MessageTime,
    MessageWithParts,
    ModelRef,
    PartTime,
    PathInfo,
    TextPart,
    ToolCompletedTime,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
    UserMessage,
)
from strata_core.runtime import Runtime
from strata_core.session import SessionBusyError
from strata_core.texts import read_prompt
from strata_core.tool import BashTool, ToolContext, ToolFailure, ToolResult

SHELL_TIMEOUT_MS = 600_000
"""The bash tool's longest time limit: a command the user runs may take as long as one the model may."""
ABORTED = "User aborted the command"


@define
class SessionShells:
    """The commands running in the server's sessions, one per session, each cancellable by `abort`."""

    _running: dict[str, anyio.CancelScope] = field(factory=dict)

    def is_running(self, session_id: str) -> bool:
        return session_id in self._running

    def cancel(self, session_id: str) -> None:
        scope = self._running.get(session_id)
        if scope is not None:
            scope.cancel()

    async def run(
        self, runtime: Runtime, session_id: str, command: str, choice: TurnChoice, message_id: str | None = None
    ) -> MessageWithParts:
        """Run `command` in the session as the user's; the assistant message holding its call."""
        if self.is_running(session_id) or runtime.loop.is_running(session_id):
            raise SessionBusyError(session_id, elsewhere=False)
        resolved = await runtime.loop.resolve(choice)
        await _check_message_id(runtime, session_id, message_id)
        scope = self._running[session_id] = anyio.CancelScope()
        try:
            async with runtime.store.lease(session_id):
                shell = _Shell(runtime, session_id, resolved.agent, scope)
                return await shell.run(command, resolved.model, message_id)
        finally:
            del self._running[session_id]


async def _check_message_id(runtime: Runtime, session_id: str, message_id: str | None) -> None:
    """The prompt's rules for a chosen id (`check_message_id`): a `MessageIdError` is the client's 400."""
    if message_id is None:
        return
    newest = await runtime.store.newest_message_id(session_id)
    holder = await runtime.store.message_session(message_id)
    check_message_id(message_id, newest, runtime.clock.now_ms(), holder)


@define
class _Shell:
    runtime: Runtime
    session_id: str
    agent: AgentInfo
    scope: anyio.CancelScope

    async def run(self, command: str, model: ModelRef, message_id: str | None) -> MessageWithParts:
        runtime, ids, now = self.runtime, self.runtime.container.ids(), self.runtime.clock.now_ms
        bus = runtime.bus
        bus.publish(SessionStatus(self.session_id, "busy"))
        try:
            user = UserMessage(
                id=message_id or ids.new("msg"),
                session_id=self.session_id,
                time=MessageTime(now()),
                agent=self.agent.name,
                model=model,
            )
            said = TextPart(
                id=ids.new("prt"),
                session_id=self.session_id,
                message_id=user.id,
                text=read_prompt("server/shell_command.txt").strip(),
                synthetic=True,
            )
            await self._put(user, said)
            project = runtime.project
            path = PathInfo(cwd=str(project.directory), root=str(project.worktree))
            answer = AssistantMessage.answering(user, self.agent.name, model, path, ids.new("msg"), now())
            call_input = {"command": command}
            running = ToolStateRunning(input=call_input, time=PartTime(now()), metadata={"output": ""})
            part = ToolPart(
                id=ids.new("prt"),
                session_id=self.session_id,
                message_id=answer.id,
                call_id=ids.new("tool"),
                tool=BashTool.NAME,
                state=running,
            )
            await self._put(answer, part)
            await self._execute(command, answer, part, running)
            answer.time.completed = now()
            await self._put(answer, part)
            return MessageWithParts(answer, [part])
        finally:
            bus.publish(SessionStatus(self.session_id, "idle"))

    async def _execute(self, command: str, answer: AssistantMessage, part: ToolPart, running: ToolStateRunning) -> None:
        def progress(title: str | None, metadata: Mapping[str, Any]) -> None:
            running.metadata = dict(metadata)
            self.runtime.bus.part_updated(part)

        def ended_on_abort(result: ToolResult) -> None:
            running.metadata = {**result.metadata, "output": result.output}  # the output so far, and the note

        context = ToolContext(
            session_id=self.session_id,
            message_id=answer.id,
            call_id=part.call_id,
            agent=self.agent.name,
            ruleset=self.agent.permission,
            directory=self.runtime.project.directory,
            worktree=self.runtime.project.worktree,
            ask=_the_user_asked,
            update_metadata=progress,
            end_on_abort=ended_on_abort,
        )
        tool = self.runtime.container.registry().get(BashTool.NAME)
        end = self.runtime.clock.now_ms
        with self.scope:
            try:
                if tool is None:
                    raise ToolFailure("The bash tool is not available in this server's runtime.")
                result = await tool.execute({"command": command, "timeout": SHELL_TIMEOUT_MS}, context)
            except Exception as error:  # a failure is the call's result (ToolFailure, a missing extra), as in a turn
                part.state = ToolStateError(
                    input=running.input, error=str(error), time=PartTime(running.time.start, end())
                )
                return
            metadata = {**result.metadata}
            times = ToolCompletedTime(start=running.time.start, end=end())
            part.state = ToolStateCompleted(
                input=running.input, output=result.output, title=result.title, metadata=metadata, time=times
            )
            return
        # Aborted: the call keeps the output so far, and the message says it was aborted, as a turn's would.
        part.state = ToolStateError(
            input=running.input, error=ABORTED, time=PartTime(running.time.start, end()), metadata=running.metadata
        )
        answer.error = MessageError(ABORTED_ERROR, "The command was aborted.")

    async def _put(self, message: UserMessage | AssistantMessage, part: TextPart | ToolPart) -> None:
        store, bus = self.runtime.store, self.runtime.bus
        async with store.batch():
            await store.put_message(message)
            await store.put_part(part)
        bus.message_updated(message)
        bus.part_updated(part)


async def _the_user_asked(
    permission: str, patterns: Sequence[str], always: Sequence[str], metadata: Mapping[str, Any]
) -> None:
    """The user typed the command: what it would ask is granted, as OpenCode's session shell asks nothing."""
    return None
