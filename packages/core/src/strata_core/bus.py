"""Typed session events for renderers (the CLI, `--format json`, an embedding UI).

Publishing never blocks and never fails: the engine must not slow down or stop because a renderer is slow
or gone. Each subscriber gets its own *unbounded* anyio memory stream. Unbounded rather than bounded
with drop-oldest because every event kind matters to someone: a dropped `PermissionAsked` would leave an
interactive run waiting forever for an answer nobody was asked for, and a dropped `SessionError` would hide
why a turn stopped. The backlog only grows while a subscriber stops reading inside its `subscribe()`
context, which renderers do not do; leaving the context releases it. The engine publishes a burst of
events per chunk it reads from a model's stream, and a reader taking one event per turn of the event loop
falls ever further behind a fast stream: readers take every event already waiting at each wake-up
(`waiting()`).

Events carry snapshots: parts and messages are mutable (the processor changes them in place), so the bus
publishes a shallow copy taken at publish time, which is what the event is about. A part that streams is
announced whole when it starts and when it ends; in between, each delta is a `PartDelta` carrying only the
appended text, so what a subscriber holds stays proportional to the text however many deltas it lags behind
(a whole-part snapshot per delta would hold a copy of the text so far for every queued delta).
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

from strata_core.message import Message, MessageError, Part, ReasoningPart, TextPart, ToolPart
from strata_core.session_info import SessionInfo

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
    type: Literal["message.part.updated"] = "message.part.updated"


@frozen
class PartDelta:
    """Text appended to a streaming part (OpenCode's `message.part.delta`): the piece only, never the part."""

    session_id: str
    message_id: str
    part_id: str
    field: Literal["text"]
    """The part's field the piece is appended to (a text or reasoning part's `text`)."""
    delta: str
    type: Literal["message.part.delta"] = "message.part.delta"


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


@frozen
class SessionDiff:
    """The files a session's turns changed so far, in OpenCode's `SnapshotFileDiff` shape (`session.diff`)."""

    session_id: str
    diffs: tuple[Mapping[str, Any], ...]
    type: Literal["session.diff"] = "session.diff"


BusEvent: TypeAlias = (
    MessageUpdated
    | PartUpdated
    | PartDelta
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
    | SessionDiff
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
        snapshot = copy.copy(message)
        # A message is completed in place (`time.completed`) as it ends: the snapshot gets its own time, or an
        # update published before that (a step's tokens) would be serialized as completed by a late reader.
        snapshot.time = copy.copy(message.time)
        self.publish(MessageUpdated(snapshot))

    def part_updated(self, part: Part) -> None:
        snapshot = copy.copy(part)
        if isinstance(snapshot, ToolPart):
            # A running call's state is updated in place (progress): the snapshot gets its own.
            snapshot.state = copy.copy(snapshot.state)
        self.publish(PartUpdated(snapshot))

    def part_delta(self, part: TextPart | ReasoningPart, delta: str) -> None:
        """Announce `delta` appended to `part`'s text (no snapshot: the piece is all the event carries)."""
        self.publish(PartDelta(part.session_id, part.message_id, part.id, "text", delta))

    @staticmethod
    def waiting(events: MemoryObjectReceiveStream[BusEvent]) -> list[BusEvent]:
        """The events a subscription holds now, in order, without waiting for more."""
        ready: list[BusEvent] = []
        while True:
            try:
                ready.append(events.receive_nowait())
            except anyio.WouldBlock:
                return ready

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
