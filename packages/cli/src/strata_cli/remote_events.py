"""A server's `/event` stream (OpenCode's event shapes) read back into the core's bus events, so `strata run
--attach` renders a remote turn with the same renderers as a local one.

A `message.part.delta` (only the appended text) becomes the core's `PartDelta`, which the renderers apply to
the part they were shown at its start, as for a local turn. Events the renderers have no use for map to
nothing.
"""

from __future__ import annotations

from typing import Any

from attrs import define

from strata_core import bus as b
from strata_core import message as m
from strata_core.serialization import converter


@define
class RemoteEvents:
    def bus_event(self, event: dict[str, Any]) -> b.BusEvent | None:
        """The bus event for one `/event` payload, or None (not one the renderers use, or not understood)."""
        try:
            return self._convert(event)
        except (KeyError, TypeError, ValueError):  # cattrs' errors are ValueErrors: a shape from another version
            return None

    def _convert(self, event: dict[str, Any]) -> b.BusEvent | None:
        kind, props = event.get("type"), event.get("properties") or {}
        if kind == "message.updated":
            return b.MessageUpdated(converter.structure(props["info"], m.Message))  # type: ignore[arg-type]
        if kind == "message.part.updated":
            return b.PartUpdated(converter.structure(props["part"], m.Part))  # type: ignore[arg-type]
        if kind == "message.part.delta":
            return _delta(props)
        if kind == "session.status" and props["status"]["type"] == "retry":
            status = props["status"]
            return b.SessionRetry(props["sessionID"], status["attempt"], 0.0, status["message"])
        if kind == "session.idle":
            return b.SessionStatus(props["sessionID"], "idle")
        if kind == "session.error" and "error" in props:
            error = props["error"]
            data = dict(error.get("data") or {})
            return b.SessionError(props["sessionID"], m.MessageError(error["name"], str(data.pop("message", "")), data))
        if kind == "permission.asked":
            return b.PermissionAsked(_request(props))
        if kind == "permission.replied":
            return b.PermissionReplied(props["sessionID"], props["requestID"], props["reply"])
        return None


def _delta(props: dict[str, Any]) -> b.PartDelta | None:
    if props.get("field") != "text" or not isinstance(props["delta"], str):
        return None
    return b.PartDelta(props["sessionID"], props["messageID"], props["partID"], "text", props["delta"])


def _request(props: dict[str, Any]) -> b.PermissionRequest:
    tool = props.get("tool") or {}
    return b.PermissionRequest(
        id=props["id"],
        session_id=props["sessionID"],
        permission=props["permission"],
        patterns=tuple(props.get("patterns", ())),
        always=tuple(props.get("always", ())),
        metadata=props.get("metadata", {}),
        message_id=tool.get("messageID"),
        call_id=tool.get("callID"),
    )
