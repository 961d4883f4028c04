"""Events across hosts: with a shared store (PostgreSQL), each server relays the events it shaped to the others, and
hands theirs to its own `/event` clients, so a turn prompted on one host streams to the clients of every host.

An event goes as it is when it fits one notification. One that does not is cut or replaced by what lets the
receiver rebuild it: a text delta is cut into deltas that fit (a client appends them as one); a part is sent as a
reference (`part.ref`), and the receiver reads the part from the store, where it was written before its event
was published. Any other event too big to send is left out and logged (none of OpenCode's others come near the
limit). Order: one host's events reach another in the order they were shaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import define, field

from strata_core.logging import get_logger
from strata_core.session import part_data
from strata_server.event_shapes import EventShapes, Payload

if TYPE_CHECKING:  # the channel's module imports the driver: loaded only by a server on a shared store
    from strata_core.session import NotifyChannel, SharedStore

log = get_logger(__name__)

PART_REFERENCE = "strata.part.ref"
"""The relay's own message naming a stored part; never sent to a client."""
SESSION_ABORT = "strata.session.abort"
"""The relay's own message asking the server running a session's turn to abort it (an `abort` sent to another
host); never sent to a client."""
PERMISSION_REPLY = "strata.permission.reply"
"""The relay's own message carrying a reply to a permission question another server asked (`properties`: the
request id, the reply and its message); never sent to a client."""
REQUESTS = (SESSION_ABORT, PERMISSION_REPLY)
"""The relay's messages that ask something of the server that receives them, rather than show an event."""
DELTA_PIECE_CHARS = 1000
"""A piece of a delta cut to fit: a character takes at most 6 bytes in the JSON (a control character's
six-character escape; UTF-8 takes at most 4), so a piece stays under the limit with its ids around it."""


@define(eq=False)
class EventRelay:
    store: SharedStore
    shapes: EventShapes
    channel: NotifyChannel
    left_out: int = field(default=0, init=False)

    def outgoing(self, payload: Payload) -> None:
        """Send one event this server shaped to the other servers."""
        for message in self._fitted(payload):
            self.channel.send(message)

    def abort_elsewhere(self, session_id: str) -> None:
        """Ask the other servers to abort the session's turn, should one of them be running it."""
        self.channel.send({"type": SESSION_ABORT, "properties": {"sessionID": session_id}})

    def reply_elsewhere(self, request_id: str, reply: str, message: str | None) -> None:
        """Pass a permission reply to the other servers: the one that asked the question takes it."""
        properties = {"requestID": request_id, "reply": reply, "message": message}
        self.channel.send({"type": PERMISSION_REPLY, "properties": properties})

    def _fitted(self, payload: Payload) -> list[Payload]:
        from strata_core.session import fits_one_notification

        if fits_one_notification(payload):
            return [payload]
        kind, properties = payload.get("type"), payload.get("properties", {})
        if kind == "message.part.delta" and isinstance(properties.get("delta"), str):
            text: str = properties["delta"]
            pieces = [text[i : i + DELTA_PIECE_CHARS] for i in range(0, len(text), DELTA_PIECE_CHARS)]
            return [self.shapes.event(kind, {**properties, "delta": piece}) for piece in pieces]
        if kind == "message.part.updated":
            part = properties.get("part", {})
            reference = {"sessionID": part.get("sessionID"), "partID": part.get("id"), "time": properties.get("time")}
            return [{"type": PART_REFERENCE, "properties": reference}]
        self.left_out += 1
        log.warning("shared events: an event too big to relay was left out", kind=kind)
        return []

    async def incoming(self, message: dict[str, Any]) -> Payload | None:
        """The event another server sent, as this server's clients get it (None: nothing to show)."""
        if message.get("type") in REQUESTS:
            return None  # handled by the hub (`on_request`)
        if message.get("type") != PART_REFERENCE:
            return message
        properties = message.get("properties", {})
        session_id, part_id = properties.get("sessionID"), properties.get("partID")
        if not isinstance(session_id, str) or not isinstance(part_id, str):
            return None
        part = await self.store.part(session_id, part_id)
        if part is None:
            return None  # deleted since
        shaped = {"sessionID": session_id, "part": part_data(part), "time": properties.get("time")}
        return self.shapes.event("message.part.updated", shaped)
