"""Usage statistics over stored sessions (`strata stats`, as `opencode stats`): tokens, cost and sessions, in
all and by model and by day.

Counted as OpenCode counts them: a session is in when it was updated within the window; its assistant
messages' tokens and costs are added up; a session's token total feeds the average and median per session.
"""

from __future__ import annotations

import datetime
import statistics
from collections.abc import Iterable, Sequence

from attrs import define, field

from strata_core.message import AssistantMessage, MessageWithParts
from strata_core.session.store import SessionStore
from strata_core.session.usage import UsageTotals
from strata_core.session_info import SessionInfo

DAY_MS = 86_400_000


@define
class Bucket:
    """What one model, or one day, used."""

    sessions: set[str] = field(factory=set)
    messages: int = 0
    usage: UsageTotals = field(factory=UsageTotals)


@define
class Stats:
    sessions: int = 0
    messages: int = 0
    days: int = 1
    usage: UsageTotals = field(factory=UsageTotals)
    per_session_tokens: list[int] = field(factory=list)
    by_model: dict[str, Bucket] = field(factory=dict)
    by_day: dict[str, Bucket] = field(factory=dict)
    """Keyed `YYYY-MM-DD` (local time), oldest first."""

    @property
    def cost_per_day(self) -> float:
        return self.usage.cost / self.days

    @property
    def average_tokens(self) -> float:
        return sum(self.per_session_tokens) / len(self.per_session_tokens) if self.per_session_tokens else 0.0

    @property
    def median_tokens(self) -> float:
        return statistics.median(self.per_session_tokens) if self.per_session_tokens else 0.0


async def usage_stats(
    store: SessionStore, now_ms: int, *, days: int | None = None, project_id: str | None = None
) -> Stats:
    """The statistics of the store's sessions (one project's, or all) updated in the last `days` days.

    `days=0` means today only; None, all time.
    """
    since = window_start(now_ms, days)
    sessions = [s for s in await store.list_sessions(project_id) if s.time.updated >= since]
    loaded = [(session, await store.messages(session.id)) for session in sessions]
    return aggregate(loaded, now_ms, days)


def window_start(now_ms: int, days: int | None) -> int:
    if days is None:
        return 0
    if days == 0:
        midnight = datetime.datetime.fromtimestamp(now_ms / 1000).replace(hour=0, minute=0, second=0, microsecond=0)
        return int(midnight.timestamp() * 1000)
    return now_ms - days * DAY_MS


def aggregate(
    sessions: Iterable[tuple[SessionInfo, Sequence[MessageWithParts]]], now_ms: int, days: int | None = None
) -> Stats:
    stats = Stats()
    earliest, latest = now_ms, 0
    for session, history in sessions:
        stats.sessions += 1
        earliest, latest = min(earliest, session.time.created), max(latest, session.time.updated)
        own = UsageTotals()
        for message in history:
            stats.messages += 1
            info = message.info
            if not isinstance(info, AssistantMessage):
                continue
            own = own.plus(info.tokens, info.cost)
            day = datetime.datetime.fromtimestamp(info.time.created / 1000).strftime("%Y-%m-%d")
            for bucket in (stats.by_model.setdefault(info.model_ref, Bucket()), stats.by_day.setdefault(day, Bucket())):
                bucket.sessions.add(session.id)
                bucket.messages += 1
                bucket.usage = bucket.usage.plus(info.tokens, info.cost)
        stats.usage = stats.usage.plus_usage(own)
        stats.per_session_tokens.append(own.total_tokens)
    stats.by_day = dict(sorted(stats.by_day.items()))
    span = max(1, -(-(latest - earliest) // DAY_MS)) if stats.sessions else 1
    stats.days = (1 if days == 0 else days) if days is not None else span
    return stats
