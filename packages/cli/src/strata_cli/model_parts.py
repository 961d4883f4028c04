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
    other sessions' (a subagent's child session) are left out. A streaming part's deltas name only the part,
    so the model's text and reasoning parts are remembered from their first announcement until their last.
    """

    session_id: str
    _messages: set[str] = field(factory=set, init=False)
    _streaming: dict[str, m.TextPart | m.ReasoningPart] = field(factory=dict, init=False)
    """The model's open text and reasoning parts, as first announced (their text is grown from deltas)."""

    def part_of(self, event: b.BusEvent) -> m.Part | None:
        """The part `event` updates when it is one of the model's in this session; None for any other event."""
        if isinstance(event, b.MessageUpdated):
            if event.message.session_id == self.session_id and event.message.role == "assistant":
                self._messages.add(event.message.id)
        elif isinstance(event, b.PartUpdated) and event.part.message_id in self._messages:
            self._follow(event.part)
            return event.part
        return None

    def streamed_into(self, event: b.BusEvent) -> m.TextPart | m.ReasoningPart | None:
        """The open part of the model's that `event` appends text to (a `PartDelta`); None for any other event."""
        if isinstance(event, b.PartDelta) and event.field == "text":
            return self._streaming.get(event.part_id)
        return None

    def _follow(self, part: m.Part) -> None:
        if not isinstance(part, m.TextPart | m.ReasoningPart):
            return
        if part.time is not None and part.time.end is not None:
            self._streaming.pop(part.id, None)
        else:
            self._streaming.setdefault(part.id, part)
