"""`StrataAgent`: the ACP agent methods over the runtimes of the sessions' working directories (`Projects`).

Sessions are Strata's own (the store's), each served by the runtime of its `cwd`: `session/new` creates one,
`session/load` replays a stored one as updates, list, fork, resume and close work on the store.
`session/prompt` stores the user's message and runs the turn through the runtime's loop, forwarding the bus's
events for that session as they come (an `UpdateStream`); the answer's end becomes the stop reason
(`end_turn`, `cancelled` after `session/cancel`, `refusal` when the turn failed). The MCP servers a client
gives a session (new, load, resume, fork) start for it alone (its project's `SessionMcp`) and close with it.
Bad input (an unknown session, a prompt while one runs, a cwd that is no directory) is a JSON-RPC error;
nothing reaches stdout but protocol messages.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio
from acp import RequestError
from acp.schema import (
    AcpMcpServer,
    AudioContentBlock,
    ClientCapabilities,
    CloseSessionResponse,
    EmbeddedResourceContentBlock,
    ForkSessionResponse,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    NewSessionResponse,
    PromptResponse,
    ResourceContentBlock,
    ResumeSessionResponse,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionInfo,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
    StopReason,
    TextContentBlock,
    Usage,
)
from attrs import Factory, define, field

from strata_acp.capabilities import initialize_response
from strata_acp.commands import available_commands, prompt_request
from strata_acp.editor_writes import EditorWrites
from strata_acp.options import SessionSettings, config_options, default_settings
from strata_acp.permission import ClientApprover
from strata_acp.projects import Projects
from strata_acp.prompt_blocks import prompt_input
from strata_acp.session_mcp import turn_of
from strata_acp.updates import SessionUpdate, UpdateStream
from strata_core.bus import Bus, BusEvent, MessageUpdated, PartDelta, PartUpdated
from strata_core.engine import PromptRequest, TurnEnd
from strata_core.errors import StrataError
from strata_core.logging import get_logger
from strata_core.message import AssistantMessage, MessageWithParts, ReasoningPart, ToolPart, ToolStateCompleted
from strata_core.session import SessionNotFoundError

if TYPE_CHECKING:
    from acp.interfaces import Client
    from anyio.abc import ObjectReceiveStream, TaskGroup

    from strata_core.runtime import Runtime

log = get_logger(__name__)

McpServers: TypeAlias = list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio]
PromptBlock: TypeAlias = (
    TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
)

STOP_REASONS: dict[TurnEnd, StopReason] = {
    TurnEnd.FINISHED: "end_turn",
    TurnEnd.ABORTED: "cancelled",
    TurnEnd.FAILED: "refusal",
}
"""A failed turn (the model's error, stored with the answer) is a refusal: the client's one stop reason for a
turn that ended without doing what was asked."""


@define
class StrataAgent:
    """The agent side of one editor connection."""

    projects: Projects
    """The runtime (and client-given MCP servers) of each session's working directory."""
    approver: ClientApprover
    background: TaskGroup
    """Where notifications that follow a response run (the command list after `session/new`)."""
    version: str = "0.1.0"
    client: Client | None = None
    settings: dict[str, SessionSettings] = field(factory=dict)
    writes: EditorWrites = field(default=Factory(lambda self: EditorWrites(self.background), takes_self=True))
    """The editor is told each file an edit wrote, if it offers `fs/write_text_file`."""
    _prompting: set[str] = field(factory=set, init=False)
    """Sessions with a `session/prompt` being answered."""
    _assistant_messages: set[str] = field(factory=set, init=False)
    _reasoning_parts: set[str] = field(factory=set, init=False)

    def on_connect(self, conn: Client) -> None:
        self.client = conn
        self.approver.connect(conn)
        self.writes.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.writes.enabled = bool(fs and fs.write_text_file)
        return initialize_response(self.version)

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    # -- sessions -------------------------------------------------------------------------------------

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        project = await self.projects.at(cwd)
        info = await project.runtime.sessions.create()
        self.projects.bind(info.id, project)
        settings = await self._settings(info.id)
        await project.mcp.open(info.id, mcp_servers or [])
        self._announce_commands(info.id)
        return NewSessionResponse(session_id=info.id, config_options=await self._options(info.id, settings))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: McpServers | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        settings = await self._open(session_id, cwd, mcp_servers)
        await self._replay(session_id)
        self._announce_commands(session_id)
        return LoadSessionResponse(config_options=await self._options(session_id, settings))

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        settings = await self._open(session_id, cwd, mcp_servers)
        self._announce_commands(session_id)
        return ResumeSessionResponse(config_options=await self._options(session_id, settings))

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers | None = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        await self._settings(session_id)
        project = await self.projects.at(cwd)
        forked = await project.runtime.sessions.fork(session_id)
        settings = await self._open(forked.id, cwd, mcp_servers)
        await self._replay(forked.id)
        self._announce_commands(forked.id)
        return ForkSessionResponse(session_id=forked.id, config_options=await self._options(forked.id, settings))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        # A directory's sessions are in its project's store (none for one that is not a directory).
        if cwd is not None and not await anyio.Path(cwd).is_dir():
            return ListSessionsResponse(sessions=[])
        runtime = (await self.projects.at(cwd)).runtime if cwd is not None else self.projects.home.runtime
        infos = await runtime.sessions.list_sessions()
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id, cwd=info.directory, title=info.title, updated_at=_iso(info.time.updated)
                )
                for info in infos
                if info.parent_id is None and (cwd is None or info.directory == cwd)
            ]
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        await self._settings(session_id)
        project = self.projects.of(session_id)
        await project.runtime.loop.cancel(session_id)
        await project.runtime.loop.ended(session_id)
        await project.mcp.close(session_id)
        self.settings.pop(session_id, None)
        return CloseSessionResponse()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse:
        await self._choose(session_id, "mode", mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        settings = await self._choose(session_id, config_id, str(value))
        return SetSessionConfigOptionResponse(config_options=await self._options(session_id, settings))

    # -- turns ----------------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[PromptBlock], **kwargs: Any) -> PromptResponse:
        settings = await self._settings(session_id)
        runtime = self.projects.of(session_id).runtime
        # Checked and claimed with no await between: a second prompt sent with the first is refused, even
        # before the first reaches the loop.
        if session_id in self._prompting or runtime.loop.is_running(session_id):
            raise RequestError.invalid_request({"sessionId": session_id, "reason": "a prompt is already running"})
        self._prompting.add(session_id)
        try:
            with prompt_input(prompt, runtime.project.directory) as parts, turn_of(session_id):
                request = await prompt_request(runtime, session_id, settings, parts)
                answer = await self._run_turn(runtime, request)
        finally:
            self._prompting.discard(session_id)
        info = answer.info
        assert isinstance(info, AssistantMessage)
        tokens = info.tokens
        usage = Usage(
            input_tokens=tokens.input,
            output_tokens=tokens.output,
            total_tokens=tokens.total if tokens.total is not None else tokens.input + tokens.output,
        )
        return PromptResponse(stop_reason=STOP_REASONS[TurnEnd.of(info)], usage=usage)

    async def _run_turn(self, runtime: Runtime, request: PromptRequest) -> MessageWithParts:
        """The loop's answer, with the session's bus events forwarded to the client while it runs."""
        stream = UpdateStream(str(runtime.project.directory))
        refused: StrataError | None = None
        async with runtime.bus.subscribe() as events:
            async with anyio.create_task_group() as group:
                group.start_soon(self._forward, events, request.session_id, stream)
                try:
                    answer = await runtime.loop.prompt(request)
                except StrataError as error:
                    refused = error
                finally:
                    group.cancel_scope.cancel()
            for event in Bus.waiting(events):
                await self._handle(event, request.session_id, stream)
        if refused is not None:
            # What the loop refuses before a turn starts (an unknown agent or model, a bad attachment).
            raise RequestError.invalid_params({"sessionId": request.session_id, "reason": str(refused)})
        return answer

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        await self.projects.of(session_id).runtime.loop.cancel(session_id)

    async def cancel_all(self) -> None:
        """Cancel every prompt being answered (the editor has gone)."""
        for session_id in list(self._prompting):
            await self.projects.of(session_id).runtime.loop.cancel(session_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    # -- helpers --------------------------------------------------------------------------------------

    async def _settings(self, session_id: str) -> SessionSettings:
        """The session's settings; an id the store does not hold is the client's error."""
        if session_id in self.settings:
            return self.settings[session_id]
        runtime = self.projects.of(session_id).runtime
        try:
            await runtime.sessions.get(session_id)
        except SessionNotFoundError:
            raise RequestError(
                -32602, f"Invalid params: session not found: {session_id}", {"sessionId": session_id}
            ) from None
        settings = self.settings[session_id] = await default_settings(runtime)
        return settings

    async def _open(self, session_id: str, cwd: str, mcp_servers: McpServers | None) -> SessionSettings:
        """Serve a stored session from the project of `cwd`, with the MCP servers the client gives it."""
        project = await self.projects.at(cwd)
        self.projects.bind(session_id, project)
        settings = await self._settings(session_id)
        await project.mcp.open(session_id, mcp_servers or [])
        return settings

    async def _options(
        self, session_id: str, settings: SessionSettings
    ) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        return await config_options(self.projects.of(session_id).runtime, settings)

    def _announce_commands(self, session_id: str) -> None:
        async def announce() -> None:
            await self._send(session_id, await available_commands(self.projects.of(session_id).runtime))

        # After the response that names the session, as OpenCode sends it: the client knows the id by then.
        self.background.start_soon(announce)

    async def _choose(self, session_id: str, config_id: str, value: str) -> SessionSettings:
        settings = await self._settings(session_id)
        runtime = self.projects.of(session_id).runtime
        if config_id == "mode":
            agent = await runtime.agents.get(value)
            if agent is None or agent.mode == "subagent":
                raise RequestError.invalid_params({"modeId": value, "reason": "no such primary agent"})
            settings.mode = value
        elif config_id == "model":
            try:
                runtime.models.resolve(value)
            except Exception as error:  # the catalogue's own error says what is wrong with the reference
                raise RequestError.invalid_params({"value": value, "reason": str(error)}) from None
            settings.model = value
        else:
            raise RequestError.invalid_params({"configId": config_id, "reason": "options are model and mode"})
        return settings

    async def _replay(self, session_id: str) -> None:
        runtime = self.projects.of(session_id).runtime
        stream = UpdateStream(str(runtime.project.directory))
        for message in await runtime.sessions.messages(session_id):
            user = not isinstance(message.info, AssistantMessage)
            for part in message.parts:
                for update in stream.user_text(part) if user else stream.part(part):
                    await self._send(session_id, update)

    async def _forward(self, events: ObjectReceiveStream[BusEvent], session_id: str, stream: UpdateStream) -> None:
        async for event in events:
            # Shielded: the prompt's end cancels this task only between events, never inside a send.
            with anyio.CancelScope(shield=True):
                await self._handle(event, session_id, stream)

    async def _handle(self, event: BusEvent, session_id: str, stream: UpdateStream) -> None:
        if isinstance(event, MessageUpdated):
            if event.message.session_id == session_id and isinstance(event.message, AssistantMessage):
                self._assistant_messages.add(event.message.id)
            return
        if isinstance(event, PartDelta):
            if event.session_id == session_id and event.message_id in self._assistant_messages:
                reasoning = event.part_id in self._reasoning_parts
                for update in stream.delta(event.part_id, event.delta, reasoning):
                    await self._send(session_id, update)
            return
        if isinstance(event, PartUpdated):
            part = event.part
            if part.session_id != session_id or part.message_id not in self._assistant_messages:
                return
            if isinstance(part, ReasoningPart):
                self._reasoning_parts.add(part.id)
            if isinstance(part, ToolPart) and isinstance(part.state, ToolStateCompleted):
                await self.writes.tell(session_id, part)
            for update in stream.part(part):
                await self._send(session_id, update)

    async def _send(self, session_id: str, update: SessionUpdate) -> None:
        if self.client is not None:
            with suppress(ConnectionError):  # the editor has gone: there is nobody left to tell
                await self.client.session_update(session_id=session_id, update=update)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
