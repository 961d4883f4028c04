"""An ACP client for tests: the `agent-client-protocol` library's client side, driving an agent subprocess over
stdio and recording every JSON-RPC message both ways.

    async with acp_agent(["strata", "acp"], cwd=project, env=env) as agent:
        await agent.conn.initialize(protocol_version=1, client_capabilities=FS_CLIENT)
        session = await agent.conn.new_session(cwd=str(project), mcp_servers=[])
        agent.permission_answers.append("once")
        await agent.conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        kinds = agent.update_kinds()

Permission requests are answered from `permission_answers` in order (an option *kind*: "once", "always",
"reject"; none left is a cancelled outcome); `fs/write_text_file` is recorded in `writes` (and writes
nothing); `fs/read_text_file` reads the real file. `transcript` holds the raw messages, ids and all, so a test
can compare the shapes two agents send (`shape_of`).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal, cast

import anyio
import attrs
from acp import Client, RequestPermissionResponse, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.connection import StreamEvent
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    PermissionOption,
    ReadTextFileResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

STRATA_ACP = [str(Path(sys.executable).with_name("strata")), "acp"]
"""`strata acp` of the environment the tests run in."""

FS_CLIENT = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))
"""A client that offers its file system (as Zed does)."""

AnswerKind = Literal["once", "always", "reject"]
_OPTION_KINDS: Mapping[AnswerKind, str] = {"once": "allow_once", "always": "allow_always", "reject": "reject_once"}


@attrs.define
class RecordingClient:
    """The client half: answers the agent's requests and keeps what it was sent."""

    permission_answers: list[AnswerKind] = attrs.field(factory=list)
    permission_requests: list[dict[str, Any]] = attrs.field(factory=list)
    writes: list[tuple[str, str]] = attrs.field(factory=list)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append({"toolCall": tool_call, "options": options})
        if not self.permission_answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        wanted = _OPTION_KINDS[self.permission_answers.pop(0)]
        chosen = next(option for option in options if option.kind == wanted)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        self.writes.append((path, content))
        return WriteTextFileResponse()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=await anyio.Path(path).read_text())


@attrs.define
class AgentProcess:
    """A running agent: the connection to it, the client answering it, and the transcript so far."""

    conn: ClientSideConnection
    client: RecordingClient
    process: asyncio.subprocess.Process
    transcript: list[tuple[str, dict[str, Any]]] = attrs.field(factory=list)
    """(direction, message): "in" is from the agent, "out" to it."""
    changed: anyio.Event = attrs.field(factory=anyio.Event)
    """Set by each message; `until` renews it."""

    @property
    def permission_answers(self) -> list[AnswerKind]:
        return self.client.permission_answers

    def updates(self) -> list[dict[str, Any]]:
        """Every `session/update`'s `update`, in arrival order."""
        return [
            message["params"]["update"]
            for direction, message in self.transcript
            if direction == "in" and message.get("method") == "session/update"
        ]

    def update_kinds(self, *, drop: Sequence[str] = ("available_commands_update", "usage_update")) -> list[str]:
        """The `sessionUpdate` kinds in order, runs of one kind collapsed (chunking aside), `drop` left out."""
        kinds: list[str] = []
        for update in self.updates():
            kind = update["sessionUpdate"]
            if kind not in drop and (not kinds or kinds[-1] != kind):
                kinds.append(kind)
        return kinds

    def tool_statuses(self) -> list[tuple[str, str | None, str | None]]:
        """(sessionUpdate, kind, status) of every tool call update, in order."""
        return [
            (update["sessionUpdate"], update.get("kind"), update.get("status"))
            for update in self.updates()
            if update["sessionUpdate"] in ("tool_call", "tool_call_update")
        ]

    def clear(self) -> None:
        self.transcript.clear()

    def record(self, event: StreamEvent) -> None:
        self.transcript.append(("in" if event.direction.value == "incoming" else "out", event.message))
        self.changed.set()

    async def until(self, condition: Callable[[], bool]) -> None:
        """Return once `condition()` holds, checked at each message (the caller bounds the wait)."""
        while not condition():
            self.changed = anyio.Event()
            await self.changed.wait()


@asynccontextmanager
async def acp_agent(command: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> AsyncIterator[AgentProcess]:
    """Start `command` as an ACP agent on stdio; the process is stopped when the block ends."""
    client = RecordingClient()
    transcript: list[tuple[str, dict[str, Any]]] = []
    recorders: list[AgentProcess] = []

    def record(event: StreamEvent) -> None:
        if recorders:
            recorders[0].record(event)
        else:
            transcript.append(("in" if event.direction.value == "incoming" else "out", event.message))

    # cast: the client implements only what the agents under test call (no terminals, no elicitation).
    spawned = spawn_agent_process(cast(Client, client), command[0], *command[1:], cwd=cwd, env=env, observers=[record])
    async with spawned as (conn, process):
        agent = AgentProcess(conn=conn, client=client, process=process, transcript=transcript)
        recorders.append(agent)
        try:
            yield agent
        finally:
            if process.returncode is None:
                process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), 10)
                except TimeoutError:
                    process.kill()
                    await process.wait()


def shape_of(value: Any) -> Any:
    """A JSON value with its scalars replaced by their type names: what two agents must agree on."""
    if isinstance(value, dict):
        return {key: shape_of(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        return [shape_of(item) for item in value[:1]]
    return type(value).__name__


def configure(project: Path, base_url: str) -> None:
    """The scripted model as the project's model (`mock/gpt-4o-mock`); edits and shell commands ask."""
    from cli_harness import mock_provider_config

    config = mock_provider_config(base_url)
    config["permission"] = {"edit": "ask", "bash": "ask"}
    (project / "opencode.json").write_text(json.dumps(config))
