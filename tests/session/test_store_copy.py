"""Copying a local store into a shared one: whole sessions, skipped when already there, never rolling back a
session continued in the target, and verified."""

from __future__ import annotations

from pathlib import Path

import pytest
from session_records import assistant_message, session_info, text_part, user_message

from strata_core.session.postgres_store import PostgresSessionStore
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store_copy import copy_sessions

pytestmark = pytest.mark.anyio


async def test_a_copy_is_whole_skips_what_is_there_and_leaves_a_session_continued_there(
    tmp_path: Path, postgres_url: str
) -> None:
    async with (
        SqliteSessionStore.open(tmp_path / "strata.db") as local,
        PostgresSessionStore.open(postgres_url) as shared,
    ):
        sessions = [session_info(updated=10), session_info(updated=20)]
        for info in sessions:
            await local.put_session(info)
            user = user_message(info.id)
            await local.put_message(user)
            await local.put_part(text_part(info.id, user.id, "question"))
            reply = assistant_message(info.id, user.id)
            await local.put_message(reply)
            for text in ("one", "two"):
                await local.put_part(text_part(info.id, reply.id, text))

        first = await copy_sessions(local, shared)
        assert (first.sessions, first.copied, first.already_there, first.messages, first.parts) == (2, 2, 0, 4, 6)
        assert first.mismatched == [] and first.newer_there == []
        for info in sessions:
            assert await shared.messages(info.id) == await local.messages(info.id)

        continued = sessions[0]
        continued.time.updated = 99  # continued on another host after the copy
        await shared.put_session(continued)
        await shared.put_message(user_message(continued.id))
        again = await copy_sessions(local, shared)
        assert (again.copied, again.already_there, again.newer_there) == (0, 1, [continued.id])
        assert len(await shared.messages(continued.id)) == 3  # not rolled back
