"""The one clock and the ids made from it: frozen time, reproducible ids, order that survives the clock."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone

from strata_core.clock import FrozenClock, SystemClock
from strata_core.ids import BASE62, TIME_PART_MODULUS, Ids, random_base62, seeded_entropy, time_part

ID_FORMAT = re.compile(r"^(msg|ses)_[0-9a-f]{12}[0-9A-Za-z]{14}$")

# Recorded by OpenCode 1.18.33 (tests/oracle_fixtures/captures/opencode-plan-exit-no/messages.json): a session
# id (descending: "...ffe" is the inverted counter 1) and its messages' ids with their `time.created`.
OPENCODE_SESSION_ID = "ses_dcd0afcefffe7WsQ5uyjOCFLGU"
OPENCODE_MESSAGES = (
    ("msg_232f5052a001NQ7zw6yJncksg0", 1_796_151_248_170),
    ("msg_232f508c3001ZeGt4f6zZybJje", 1_796_151_249_091),
    ("msg_232f50e6e001pY7zzO81fB3x8I", 1_796_151_250_542),
)


def opencode_id(prefix: str, ms: int, counter: int, descending: bool = False) -> str:
    """OpenCode's `Identifier.create` (id.ts), written out here: six big-endian bytes of the (inverted) value."""
    value = ms * 0x1000 + counter
    if descending:
        value = ~value
    time_bytes = bytes((value >> (40 - 8 * i)) & 0xFF for i in range(6))
    return f"{prefix}_{time_bytes.hex()}{'A' * 14}"


def test_a_frozen_clock_stands_still_until_advanced() -> None:
    clock = FrozenClock.at(datetime(2030, 2, 3, 23, 30, tzinfo=UTC))
    assert clock.now_ms() == clock.now_ms() == 1_896_391_800_000
    clock.advance(timedelta(hours=1))
    assert clock.now_ms() == 1_896_395_400_000 and clock.today() == date(2030, 2, 4)
    clock.advance(-1)
    assert clock.now_ms() == 1_896_395_399_999


def test_a_frozen_clock_dates_its_instant_in_the_zone_it_was_given() -> None:
    late_in_new_york = datetime(2030, 2, 3, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert FrozenClock.at(late_in_new_york).today() == date(2030, 2, 3)
    assert FrozenClock.at(late_in_new_york.astimezone(UTC)).today() == date(2030, 2, 4)
    assert FrozenClock.at(datetime(2030, 2, 3, 12, 0)).today() == date(2030, 2, 3)  # naive: local time


def test_the_system_clock_is_the_machines() -> None:
    before = int(datetime.now().timestamp() * 1000)
    assert before - 1000 <= SystemClock().now_ms() <= before + 1000
    assert SystemClock().today() in (date.today(), date.today() - timedelta(days=1))


def test_ids_keep_opencodes_shape_and_carry_the_clocks_time() -> None:
    clock = FrozenClock(1_780_000_000_123)
    made = Ids(clock).new("msg")
    assert ID_FORMAT.match(made), made
    assert made.startswith(f"msg_{(1_780_000_000_123 * 4096 + 1) & (2**48 - 1):012x}")
    assert time_part(made) == 1_780_000_000_123 % TIME_PART_MODULUS


def test_ids_are_opencodes_for_the_same_instant_and_sort_among_them_as_opencodes_would() -> None:
    ms = 1_780_000_000_123
    ids = Ids(FrozenClock(ms))
    ours = [ids.new("msg"), ids.new("msg")]
    theirs = [opencode_id("msg", ms, 1), opencode_id("msg", ms, 2)]
    assert [made[:16] for made in ours] == [made[:16] for made in theirs]
    # An OpenCode message a millisecond before sorts before ours, one a millisecond after sorts after.
    assert opencode_id("msg", ms - 1, 7) < ours[0] < ours[1] < opencode_id("msg", ms + 1, 1)
    session = Ids(FrozenClock(ms)).new("ses")
    assert session[:16] == opencode_id("ses", ms, 1, descending=True)[:16]
    assert opencode_id("ses", ms + 1, 1, descending=True) < session < opencode_id("ses", ms - 1, 1, descending=True)
    assert time_part(session) == ms % TIME_PART_MODULUS


def test_ids_made_at_a_recorded_opencode_messages_time_match_its_id_up_to_the_random_tail() -> None:
    for recorded, created in OPENCODE_MESSAGES:
        assert ID_FORMAT.match(recorded)
        assert Ids(FrozenClock(created)).new("msg")[:16] == recorded[:16]
        assert time_part(recorded) == created % TIME_PART_MODULUS
    session_ms = time_part(OPENCODE_SESSION_ID)
    assert Ids(FrozenClock(session_ms)).new("ses")[:16] == OPENCODE_SESSION_ID[:16]
    assert 0 < OPENCODE_MESSAGES[0][1] % TIME_PART_MODULUS - session_ms < 60_000  # the session came just before


def test_ids_ascend_while_the_clock_stands_still_or_steps_back() -> None:
    clock = FrozenClock(1_780_000_000_000)
    ids = Ids(clock)
    made = [ids.new("prt") for _ in range(5000)]  # more than 4096 in one millisecond
    clock.advance(-60_000)
    made += [ids.new("prt") for _ in range(3)]
    assert made == sorted(made) and len(set(made)) == len(made)


def test_seeded_entropy_makes_the_whole_id_reproducible() -> None:
    def run() -> list[str]:
        ids = Ids(FrozenClock(1_780_000_000_000), seeded_entropy(42))
        return [ids.new("ses"), ids.new("msg")]

    assert run() == run()
    assert run()[0] != Ids(FrozenClock(1_780_000_000_000), seeded_entropy(43)).new("ses")
    assert random_base62(14) != random_base62(14)  # the default entropy is random


def test_the_default_entropy_gives_the_length_asked_from_all_of_base62() -> None:
    for length in (1, 14, 300):
        assert len(random_base62(length)) == length
    drawn = "".join(random_base62(14) for _ in range(2000))
    assert set(drawn) == set(BASE62)  # 28,000 draws: each of the 62 characters ~450 times


def test_ids_advanced_past_an_id_made_elsewhere_sort_after_it_and_keep_ascending() -> None:
    ms = 1_780_000_000_123
    ids = Ids(FrozenClock(ms))
    ahead = opencode_id("msg", ms + 3_600_000, 5)  # recorded by a machine whose clock ran an hour ahead
    ids.advance_past([ahead])
    made = [ids.new("msg")]
    older, session = opencode_id("msg", ms - 5, 1), opencode_id("ses", ms + 7_200_000, 1, descending=True)
    ids.advance_past([older, session])  # an older id changes nothing, nor does a descending one
    made.append(ids.new("prt"))
    assert ahead < made[0] and made[0][4:] < made[1][4:]
    assert time_part(made[1]) == (ms + 3_600_000) % TIME_PART_MODULUS
