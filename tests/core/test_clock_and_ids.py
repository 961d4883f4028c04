"""The one clock and the ids made from it: frozen time, reproducible ids, order that survives the clock."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone

from strata_core.clock import FrozenClock, SystemClock
from strata_core.ids import Ids, random_base62, seeded_entropy, time_part

ID_FORMAT = re.compile(r"^msg_[0-9a-f]{12,}[0-9A-Za-z]{14}$")


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
    assert made.startswith(f"msg_{1_780_000_000_123 * 4096:012x}")
    assert time_part(made) == 1_780_000_000_123


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
