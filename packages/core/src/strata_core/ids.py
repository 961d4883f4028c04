"""Identifiers in OpenCode's format and order (`packages/opencode/src/id/id.ts`), made from the core's one clock.

`{prefix}_{12 hex digits}{14 random base62}`. The 12 hex digits are the low 48 bits of `ms * 0x1000 + counter`
(the counter starts at 1 in each millisecond), so ids of one prefix compare as strings in creation order, and a
Strata id sorts among an imported OpenCode session's ids where OpenCode's own would. Sessions are OpenCode's
descending kind: the 48 bits are inverted (`~value`), so a newer session's id sorts before an older one's.
Like OpenCode's, the 48 bits wrap around every 2**36 ms (~2.2 years); order is kept within that span.

The time part comes from the `Clock`, the random part from an injectable `Entropy`, so a test with a
`FrozenClock` and `seeded_entropy(...)` gets the same ids on every run.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Callable, Iterable
from typing import Literal, TypeAlias

from attrs import define, field

from strata_core.clock import Clock

Prefix = Literal["ses", "msg", "prt", "per", "que", "tool", "job", "evt"]

Entropy: TypeAlias = Callable[[int], str]
"""`entropy(length)`: that many base62 characters, the random tail of an id."""

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_LENGTH = 14
TIME_HEX_DIGITS = 12
IDS_PER_MS = 0x1000
TIME_MASK = (1 << 48) - 1
TIME_PART_MODULUS = (TIME_MASK + 1) // IDS_PER_MS
"""`time_part` gives the milliseconds modulo this (2**36 ms, ~2.2 years): all that 48 bits keep."""

DESCENDING_PREFIXES: frozenset[str] = frozenset({"ses"})
"""Prefixes OpenCode makes with `Identifier.descending` (newest first)."""


_UNIFORM_BYTES = 4 * len(BASE62)
"""Random bytes below this map onto BASE62 evenly (`byte % 62`)."""


def random_base62(length: int) -> str:
    """The default entropy: cryptographically random, as OpenCode's ids are.

    One read of the system's random source per id (a few bytes spare) rather than one per character: 1.7 us
    an id instead of 12 (several ids a step). A byte of 248 or more is dropped, so each character stays
    uniform (248 is 4 x 62)."""
    chars: list[str] = []
    while len(chars) < length:
        chars += [BASE62[byte % 62] for byte in secrets.token_bytes(length + 4) if byte < _UNIFORM_BYTES]
    return "".join(chars[:length])


def seeded_entropy(seed: int) -> Entropy:
    """Entropy that repeats for the same seed: with a `FrozenClock`, every id of a run is reproducible."""
    generator = random.Random(seed)
    return lambda length: "".join(generator.choice(BASE62) for _ in range(length))


def format_id(prefix: str, value: int, tail: str) -> str:
    """OpenCode's id for `value` (`ms * 0x1000 + counter`): its low 48 bits, inverted for a descending prefix."""
    if prefix in DESCENDING_PREFIXES:
        value = ~value
    return f"{prefix}_{value & TIME_MASK:0{TIME_HEX_DIGITS}x}{tail}"


@define
class Ids:
    """Makes ids that sort after (descending: before) every id this generator made, whatever the clock does.

    One generator serves a whole runtime (ids of one session must all come from it for their order to hold).
    Thread-safe: truncation names its files from a worker thread.
    """

    clock: Clock
    entropy: Entropy = random_base62
    _last: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(factory=threading.Lock, init=False, repr=False)

    def new(self, prefix: Prefix) -> str:
        with self._lock:
            # OpenCode's counter restarts at 1 each millisecond; past 4095 ids in one (or when the clock stands
            # still or steps back) we count up from the last value, so order holds where OpenCode's would not.
            value = max(self.clock.now_ms() * IDS_PER_MS + 1, self._last + 1)
            self._last = value
        return format_id(prefix, value, self.entropy(RANDOM_LENGTH))

    def advance_past(self, identifiers: Iterable[str]) -> None:
        """Make every later ascending id sort after each of `identifiers`, ids this generator did not make.

        A session imported from OpenCode may hold ids that sort after the ones this clock gives now (another
        machine's clock ran ahead); its new messages must still sort after them, as the store orders by id.
        Descending ids (sessions) are ignored: nothing is ordered after them.
        """
        for identifier in identifiers:
            prefix, rest = identifier.split("_", 1)
            if prefix in DESCENDING_PREFIXES:
                continue
            seen = int(rest[:TIME_HEX_DIGITS], 16)
            with self._lock:
                current = max(self._last, self.clock.now_ms() * IDS_PER_MS)
                # Same 48-bit period as `current`: only the low bits can be compared with an OpenCode id.
                self._last = max(current, (current & ~TIME_MASK) | seen)


def is_well_formed(identifier: str, prefix: str) -> bool:
    """Whether `identifier` has OpenCode's id format with `prefix` (`msg_`, 12 hex digits, 14 base62 letters),
    the one its clients generate too; only such an id can be ordered with the ones made here."""
    head, _, rest = identifier.partition("_")
    time, tail = rest[:TIME_HEX_DIGITS], rest[TIME_HEX_DIGITS:]
    hex_time = len(time) == TIME_HEX_DIGITS and all(c in "0123456789abcdef" for c in time)
    return head == prefix and hex_time and len(tail) == RANDOM_LENGTH and tail.isascii() and tail.isalnum()


def time_part(identifier: str) -> int:
    """The milliseconds an id encodes, modulo `TIME_PART_MODULUS` (for tests and debugging: when was this made)."""
    prefix, rest = identifier.split("_", 1)
    value = int(rest[:TIME_HEX_DIGITS], 16)
    if prefix in DESCENDING_PREFIXES:
        value = ~value & TIME_MASK
    return value // IDS_PER_MS
