"""`strata stats`' figures over a database of many sessions: totals, per model, per day, windows, projects."""

from __future__ import annotations

from pathlib import Path

import pytest
from usage_records import priced_sessions

from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.stats import usage_stats

pytestmark = pytest.mark.anyio
NOW = 1_800_000_000_000


async def test_statistics_add_up_every_sessions_answers(tmp_path: Path) -> None:
    async with SqliteSessionStore.open(tmp_path / "strata.db") as store:
        await priced_sessions(store, 120, now_ms=NOW)
        await priced_sessions(store, 5, now_ms=NOW, project_id="other")
        stats = await usage_stats(store, NOW)
    assert (stats.sessions, stats.messages) == (125, 375)
    assert stats.usage.cost == pytest.approx(125 * 0.02)
    assert (stats.usage.input, stats.usage.output, stats.usage.cache_read) == (25_000, 2_500, 250_000)
    assert stats.median_tokens == stats.average_tokens == 2 * 1110
    assert set(stats.by_model) == {"a/one", "b/two"}
    assert len(stats.by_model["a/one"].sessions) == 125 and stats.by_model["a/one"].usage.cost == pytest.approx(1.25)
    assert len(stats.by_day) == 120 and list(stats.by_day) == sorted(stats.by_day)
    # OpenCode's count of days: the span from the oldest session to the newest, rounded up.
    assert stats.days == 119 and stats.cost_per_day == pytest.approx(2.5 / 119)


async def test_a_window_of_days_and_a_project_narrow_the_statistics(tmp_path: Path) -> None:
    async with SqliteSessionStore.open(tmp_path / "strata.db") as store:
        await priced_sessions(store, 30, now_ms=NOW)
        await priced_sessions(store, 3, now_ms=NOW, project_id="other")
        week = await usage_stats(store, NOW, days=7)
        other = await usage_stats(store, NOW, project_id="other")
        today = await usage_stats(store, NOW + 1, days=0)
    assert week.sessions == 8 + 3 and week.days == 7  # updated 0..7 days ago, in both projects
    assert other.sessions == 3 and other.usage.cost == pytest.approx(0.06)
    assert today.sessions == 2 and today.days == 1
