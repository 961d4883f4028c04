"""Typed session events for renderers (the CLI, `--format json`, an embedding UI).

Publishing never blocks and never fails: the engine must not slow down or stop because a renderer is slow
or gone. Each subscriber gets its own *unbounded* anyio memory stream. Unbounded rather than bounded
with drop-oldest because every event kind matters to someone: a dropped `PermissionAsked` would leave an
interactive run waiting forever for an answer nobody was asked for, and a dropped `SessionError` would hide
why a turn stopped. The backlog only grows while a subscriber stops reading inside its `subscribe()`
context, which renderers do not do; leaving the context releases it.

Events carry snapshots: parts and messages are mutable (the processor grows them in place), so the bus
publishes a shallow copy taken at publish time, which is what the event is about.
"""

from __future__ import annotations

import copy
import math
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, Literal, TypeAlias

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from attrs import define, field, frozen

from strata_core.message import Message, MessageError, Part, ToolPart
from strata_core.session.info import SessionInfo

SessionStatusName: TypeAlias = Literal["busy", "idle", "retry"]
PermissionReply: TypeAlias = Literal["once", "always", "reject"]


@frozen
class PermissionRequest:
    """A question to the person: may this tool call do `permission` on `patterns`?

    Defined here, beside the events that carry it, so the bus does not depend on the permission flow.
    """

    id: str
    session_id: str
    permission: str
    patterns: tuple[str, ...]
    always: tuple[str, ...]
    """The patterns an "always" answer would approve for the rest of the session."""
    metadata: Mapping[str, Any] = field(factory=dict)
    message_id: str | None = None
    call_id: str | None = None
    """The tool call asking, when a tool asks (the doom-loop check asks for the call it stopped)."""


@frozen
class MessageUpdated:
    message: Message
    type: Literal["message.updated"] = "message.updated"


@frozen
class PartUpdated:
    part: Part
    delta: str | None = None
    """The text appended by this update, for renderers that stream text as it arrives."""
    type: Literal["message.part.updated"] = "message.part.updated"


@frozen
class MessageRemoved:
    session_id: str
    message_id: str
    type: Literal["message.removed"] = "message.removed"


@frozen
class PartRemoved:
    session_id: str
    message_id: str
    part_id: str
    type: Literal["message.part.removed"] = "message.part.removed"


@frozen
class PermissionAsked:
    request: PermissionRequest
    type: Literal["permission.asked"] = "permission.asked"


@frozen
class PermissionReplied:
    session_id: str
    request_id: str
    reply: PermissionReply
    type: Literal["permission.replied"] = "permission.replied"


@frozen
class SessionError:
    session_id: str
    error: MessageError
    type: Literal["session.error"] = "session.error"


@frozen
class SessionStatus:
    session_id: str
    status: SessionStatusName
    type: Literal["session.status"] = "session.status"


@frozen
class SessionCompacted:
    session_id: str
    type: Literal["session.compacted"] = "session.compacted"


@frozen
class TitleUpdated:
    session_id: str
    title: str
    type: Literal["session.title"] = "session.title"


@frozen
class SessionRetry:
    session_id: str
    attempt: int
    delay: float
    """Seconds until the next attempt."""
    message: str
    type: Literal["session.retry"] = "session.retry"


@frozen
class SessionCreated:
    info: SessionInfo
    type: Literal["session.created"] = "session.created"


@frozen
class SessionUpdated:
    info: SessionInfo
    type: Literal["session.updated"] = "session.updated"


@frozen
class SessionDeleted:
    info: SessionInfo
    type: Literal["session.deleted"] = "session.deleted"


@frozen
class McpServerFailed:
    """An MCP server did not start (or stopped); its tools are not offered. Published once per server."""

    server: str
    error: str
    type: Literal["mcp.failed"] = "mcp.failed"


BusEvent: TypeAlias = (
    MessageUpdated
    | PartUpdated
    | MessageRemoved
    | PartRemoved
    | PermissionAsked
    | PermissionReplied
    | SessionError
    | SessionStatus
    | SessionCompacted
    | TitleUpdated
    | SessionRetry
    | SessionCreated
    | SessionUpdated
    | SessionDeleted
    | McpServerFailed
)


@define
class Bus:
    """Fan-out of session events to every current subscriber."""

    _subscribers: list[MemoryObjectSendStream[BusEvent]] = field(factory=list, init=False, repr=False)

    def publish(self, event: BusEvent) -> None:
        """Deliver `event` to every subscriber without waiting."""
        for send in list(self._subscribers):
            try:
                send.send_nowait(event)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                # The subscriber closed its receive side without leaving `subscribe()`: stop feeding it.
                self._subscribers.remove(send)

    def message_updated(self, message: Message) -> None:
        self.publish(MessageUpdated(copy.copy(message)))

    def part_updated(self, part: Part, delta: str | None = None) -> None:
        snapshot = copy.copy(part)
        if isinstance(snapshot, ToolPart):
            # A running call's state is updated in place (progress): the snapshot gets its own.
            snapshot.state = copy.copy(snapshot.state)
        self.publish(PartUpdated(snapshot, delta))

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[MemoryObjectReceiveStream[BusEvent]]:
        """Events published from now until the context exits, in publish order."""
        send, receive = anyio.create_memory_object_stream[BusEvent](max_buffer_size=math.inf)
        self._subscribers.append(send)
        try:
            async with receive:
                yield receive
        finally:
            if send in self._subscribers:
                self._subscribers.remove(send)
            send.close()
