"""A text or reasoning part while the model streams it: grown by appending, stored now and then, exact at its end.

Appending to a `str` copies it, so a part grown by `+=` costs the whole text per delta (the square of the
stream for the whole answer); the pieces are kept in a list instead and joined into the part only when it
is stored. Storing writes the part whole, so how often a growing part is stored decides what streaming
costs the disk. The rule: a growing part is stored once at least `STORE_INTERVAL_MS` have passed since its
last store *and* it has grown since then by an eighth of what was stored (by `STORE_STEP_CHARS` once it is
larger than eight times that); it is always stored at its end (exact), and everything is stored when the
step ends. So a fast stream is written at most five times a second, a slow one (a delta every few hundred
ms) is not written per delta, the bytes written stay within about nine times the text up to ~128K
characters (then one whole write per 16K more), and a crash loses at most what streamed since the last
store.
"""

from __future__ import annotations

from attrs import define, field

from strata_core.message import ReasoningPart, TextPart

STORE_INTERVAL_MS = 200
"""The least time between two stores of one growing part."""
STORE_STEP_CHARS = 16 * 1024
"""The most a large part grows between two stores (while the interval has passed)."""
STORE_GROWTH_DIVISOR = 8
"""A small part is stored again once it has grown by this fraction of its stored text."""


@define
class StreamedText:
    """One open text or reasoning part and the pieces streamed into it since it was last stored."""

    part: TextPart | ReasoningPart
    stored_at: int
    """When the part was last stored (the clock's ms)."""
    _pending: list[str] = field(factory=list, init=False)
    _pending_chars: int = field(default=0, init=False)

    def append(self, delta: str) -> None:
        self._pending.append(delta)
        self._pending_chars += len(delta)

    def due(self, now: int) -> bool:
        """Whether the part should be stored at `now` (the module's rule)."""
        if not self._pending_chars or now - self.stored_at < STORE_INTERVAL_MS:
            return False
        return self._pending_chars >= min(STORE_STEP_CHARS, len(self.part.text) // STORE_GROWTH_DIVISOR)

    def settled(self) -> TextPart | ReasoningPart:
        """The part with every piece streamed so far in its text."""
        if self._pending:
            self.part.text += "".join(self._pending)
            self._pending.clear()
            self._pending_chars = 0
        return self.part

    def stored(self, now: int) -> TextPart | ReasoningPart:
        """The settled part, to be stored at `now`."""
        self.stored_at = now
        return self.settled()
