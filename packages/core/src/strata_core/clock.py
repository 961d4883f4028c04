"""`Clock`: wall time and today's date, the only source of time in the core (ids included).

Every service that stamps a record, names a file or writes a date into the prompt asks the one clock the
container holds, so a test (or an application replaying a session) freezes time in one place:
`open_runtime(..., clock=FrozenClock.at(datetime(2030, 2, 3, 9, 0, tzinfo=UTC)))`.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta, tzinfo
from typing import Protocol

from attrs import define, frozen


class Clock(Protocol):
    """Wall time for records, today's date for the prompt's environment block."""

    def now_ms(self) -> int:
        """Milliseconds since the Unix epoch: what every `time` field of a stored record holds."""
        ...

    def today(self) -> date:
        """The local calendar date (the environment block's `Today's date`)."""
        ...


@frozen
class SystemClock:
    """The machine's clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def today(self) -> date:
        return date.today()


@define
class FrozenClock:
    """A clock that stands still at one instant until `advance()` moves it on.

    `today()` is the date of that instant in `tz` (None: the machine's local zone, as `SystemClock` does).
    """

    ms: int
    tz: tzinfo | None = None

    @classmethod
    def at(cls, when: datetime | int) -> FrozenClock:
        """Frozen at a datetime (its own zone decides `today()`; a naive one is local time) or at epoch ms."""
        if isinstance(when, int):
            return cls(when)
        return cls(round(when.timestamp() * 1000), when.tzinfo)

    def now_ms(self) -> int:
        return self.ms

    def today(self) -> date:
        return datetime.fromtimestamp(self.ms / 1000, self.tz).date()

    def advance(self, by: timedelta | int = 1) -> None:
        """Move the clock on by a timedelta or a number of milliseconds (backwards too, if negative)."""
        self.ms += by if isinstance(by, int) else round(by.total_seconds() * 1000)
