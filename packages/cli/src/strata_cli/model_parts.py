"""Which of a session's bus events update the model's own parts: what every renderer of a turn shows."""

from __future__ import annotations

from attrs import define, field

from strata_core import bus as b
from strata_core import message as m


@define
class ModelParts:
    """Follows one session's events and picks out the updates of parts of its assistant messages.

    A part's event names only its message, so the ids of the session's assistant messages are remembered as
    their `MessageUpdated` events pass (a message is announced before its parts). The user's own parts and
    other sessions' (a subagent's child session) are left out.
    """

    session_id: str
    _messages: set[str] = field(factory=set, init=False)

    def part_of(self, event: b.BusEvent) -> m.Part | None:
        """The part `event` updates when it is one of the model's in this session; None for any other event."""
        if isinstance(event, b.MessageUpdated):
            if event.message.session_id == self.session_id and event.message.role == "assistant":
                self._messages.add(event.message.id)
        elif isinstance(event, b.PartUpdated) and event.part.message_id in self._messages:
            return event.part
        return None
