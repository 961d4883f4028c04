"""A store filled with many priced sessions, for usage statistics."""

from __future__ import annotations

from typing import Any

import attrs
from session_records import IDS, assistant_message, session_info, user_message

from strata_core import message as m

DAY_MS = 86_400_000


async def priced_sessions(store: Any, count: int, *, now_ms: int, project_id: str = "proj") -> None:
    """`count` sessions, the i-th updated i days before `now_ms`, each: one user message and two answers of
    100 input, 10 output, 1000 cache-read tokens and $0.01, the first by model a/one, the second by b/two."""
    for index in range(count):
        when = now_ms - index * DAY_MS
        info = attrs.evolve(session_info(project_id=project_id, updated=when), time=m_time(when))
        await store.put_session(info)
        user = user_message(info.id, created=when)
        await store.put_message(user)
        for provider, model in (("a", "one"), ("b", "two")):
            answer = attrs.evolve(assistant_message(info.id, user.id, IDS.new("msg")), provider_id=provider,
                                  model_id=model, time=m.MessageTime(created=when), cost=0.01,
                                  tokens=m.Tokens(input=100, output=10, cache_read=1000))  # fmt: skip
            await store.put_message(answer)


def m_time(ms: int) -> Any:
    from strata_core.session_info import SessionTime

    return SessionTime(created=ms, updated=ms)
