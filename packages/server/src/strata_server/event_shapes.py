"""The core's bus events in OpenCode's event shapes (`{id, type, properties}`), as `/event` streams them.

One bus event may become several OpenCode events (an idle status is also `session.idle`) or none (the
core's own bookkeeping). Text and reasoning deltas (the core's `PartDelta`, the appended piece only) become
`message.part.delta`, as OpenCode 1.18.33 sends them; the part itself is sent whole when it starts and when
it ends, so what a client is sent (and what its buffer holds) is proportional to the text. Permission
questions are `permission.asked`/`permission.replied`, the names 1.18.33 uses (the older
`permission.updated` is gone).
"""

from __future__ import annotations

from typing import Any, assert_never

from attrs import define

from strata_core import bus as b
from strata_core.clock import Clock
from strata_core.ids import Ids
from strata_core.serialization import converter
from strata_core.session import SessionStore, part_data, session_data

Payload = dict[str, Any]


@define
class EventShapes:
    store: SessionStore
    ids: Ids
    clock: Clock

    def event(self, kind: str, properties: Payload) -> Payload:
        return {"id": self.ids.new("evt"), "type": kind, "properties": properties}

    async def shape(self, event: b.BusEvent) -> list[Payload]:
        kind_and_properties = await self._properties(event)
        return [self.event(kind, properties) for kind, properties in kind_and_properties]

    async def _properties(self, event: b.BusEvent) -> list[tuple[str, Payload]]:
        if isinstance(event, b.MessageUpdated):
            info = converter.unstructure(event.message)
            return [("message.updated", {"sessionID": event.message.session_id, "info": info})]
        if isinstance(event, b.PartUpdated):
            part = {"sessionID": event.part.session_id, "part": part_data(event.part), "time": self.clock.now_ms()}
            return [(event.type, part)]
        if isinstance(event, b.PartDelta):
            delta = {"sessionID": event.session_id, "messageID": event.message_id, "partID": event.part_id}
            return [(event.type, {**delta, "field": event.field, "delta": event.delta})]
        if isinstance(event, b.MessageRemoved):
            return [(event.type, {"sessionID": event.session_id, "messageID": event.message_id})]
        if isinstance(event, b.PartRemoved):
            removed = {"sessionID": event.session_id, "messageID": event.message_id, "partID": event.part_id}
            return [(event.type, removed)]
        if isinstance(event, b.SessionStatus | b.SessionRetry):
            return status_events(event, self.clock.now_ms())
        if isinstance(event, b.SessionCreated | b.SessionUpdated | b.SessionDeleted):
            return [(event.type, {"sessionID": event.info.id, "info": session_data(event.info)})]
        if isinstance(event, b.TitleUpdated):
            info = await self.store.get_session(event.session_id)
            return [] if info is None else [("session.updated", {"sessionID": info.id, "info": session_data(info)})]
        if isinstance(event, b.SessionError):
            return [("session.error", {"sessionID": event.session_id, "error": converter.unstructure(event.error)})]
        if isinstance(event, b.SessionCompacted):
            return [("session.compacted", {"sessionID": event.session_id})]
        if isinstance(event, b.PermissionAsked):
            return [("permission.asked", permission_data(event.request))]
        if isinstance(event, b.PermissionReplied):
            replied = {"sessionID": event.session_id, "requestID": event.request_id, "reply": event.reply}
            return [("permission.replied", replied)]
        if isinstance(event, b.SessionDiff):
            return [(event.type, {"sessionID": event.session_id, "diff": [dict(diff) for diff in event.diffs]})]
        if isinstance(event, b.McpServerFailed):
            return []  # OpenCode's stream has no such event; `GET /mcp` is where a client would look
        assert_never(event)


def status_data(event: b.SessionStatus | b.SessionRetry, now_ms: int) -> Payload:
    """OpenCode's `SessionStatus`: `{type: busy|idle}`, or a retry with its attempt and when it comes."""
    if isinstance(event, b.SessionRetry):
        return {
            "type": "retry",
            "attempt": event.attempt,
            "message": event.message,
            "next": now_ms + int(event.delay * 1000),
        }
    return {"type": event.status}


def status_events(event: b.SessionStatus | b.SessionRetry, now_ms: int) -> list[tuple[str, Payload]]:
    status = ("session.status", {"sessionID": event.session_id, "status": status_data(event, now_ms)})
    if isinstance(event, b.SessionStatus) and event.status == "idle":
        return [status, ("session.idle", {"sessionID": event.session_id})]
    return [status]


def permission_data(request: b.PermissionRequest) -> Payload:
    """OpenCode's `PermissionRequest` (what `GET /permission` lists and `permission.asked` carries)."""
    data: Payload = {
        "id": request.id,
        "sessionID": request.session_id,
        "permission": request.permission,
        "patterns": list(request.patterns),
        "metadata": dict(request.metadata),
        "always": list(request.always),
    }
    if request.message_id is not None and request.call_id is not None:
        data["tool"] = {"messageID": request.message_id, "callID": request.call_id}
    return data
