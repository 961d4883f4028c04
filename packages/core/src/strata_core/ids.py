"""Identifiers that sort by creation time, in OpenCode's format, made from the core's one clock.

`{prefix}_{hex of (ms * 4096 + counter), at least 12 digits}{14 random base62}`: comparing two ids of the
same prefix as strings compares their creation order, which the loop relies on (`last_user.id <
last_assistant.id`). Today's times take 14 hex digits; OpenCode keeps only the low 48 bits (12 digits),
so its ids wrap around every ~2.2 years, which Strata's do not.
The time part comes from the `Clock`, the random part from an injectable `Entropy`, so a test with a
`FrozenClock` and `seeded_entropy(...)` gets the same ids on every run.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Callable
from typing import Literal, TypeAlias

from attrs import define, field

from strata_core.clock import Clock

Prefix = Literal["ses", "msg", "prt", "per", "que", "tool", "job"]

Entropy: TypeAlias = Callable[[int], str]
"""`entropy(length)`: that many base62 characters, the random tail of an id."""

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_LENGTH = 14
IDS_PER_MS = 4096


def random_base62(length: int) -> str:
    """The default entropy: cryptographically random, as OpenCode's ids are."""
    return "".join(secrets.choice(BASE62) for _ in range(length))


def seeded_entropy(seed: int) -> Entropy:
    """Entropy that repeats for the same seed: with a `FrozenClock`, every id of a run is reproducible."""
    generator = random.Random(seed)
    return lambda length: "".join(generator.choice(BASE62) for _ in range(length))


@define
class Ids:
    """Makes ids that sort after every id this generator made before, whatever the clock does.

    One generator serves a whole runtime (ids of one session must all come from it for their order to hold).
    Thread-safe: truncation names its files from a worker thread.
    """

    clock: Clock
    entropy: Entropy = random_base62
    _last: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(factory=threading.Lock, init=False, repr=False)

    def new(self, prefix: Prefix) -> str:
        with self._lock:
            # ms * 4096 leaves room for 4096 ids a millisecond; past that (or when the clock stands still or
            # steps back) we count up from the last value, so order holds.
            value = max(self.clock.now_ms() * IDS_PER_MS, self._last + 1)
            self._last = value
        return f"{prefix}_{value:012x}{self.entropy(RANDOM_LENGTH)}"


def time_part(identifier: str) -> int:
    """The milliseconds an id's time part encodes (for tests and debugging: when was this made)."""
    # At least 12 hex digits: today's ms * 4096 needs 14 (OpenCode keeps only the low 48 bits).
    hex_digits = identifier.split("_", 1)[1][:-RANDOM_LENGTH]
    return int(hex_digits, 16) // IDS_PER_MS
