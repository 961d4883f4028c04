"""The `SessionStore` contract, run against the SQLite, in-memory and PostgreSQL stores."""

from __future__ import annotations

import anyio
import pytest
from session_records import IDS, assistant_message, session_info, stored_message, text_part, user_message

from strata_core import message as m
from strata_core.session.memory_store import MemorySessionStore
from strata_core.session.postgres_store import PostgresSessionStore
from strata_core.session.sqlite_store import SqliteSessionStore
from strata_core.session.store import RecordOwnerError, SessionStore, StoreClosedError

pytestmark = pytest.mark.anyio


async def test_a_stored_session_reads_back_equal(store: SessionStore) -> None:
    info = session_info(parent_id="ses_parent")
    info.permission = [{"permission": "bash", "pattern": "*", "action": "deny"}]
    await store.put_session(info)
    assert await store.get_session(info.id) == info
    assert await store.get_session("ses_missing") is None


async def test_putting_a_session_again_replaces_it(store: SessionStore) -> None:
    info = session_info()
    await store.put_session(info)
    info.title = "renamed"
    await store.put_session(info)
    stored = await store.get_session(info.id)
    assert stored is not None and stored.title == "renamed"


async def test_sessions_are_listed_by_project_most_recently_updated_first(store: SessionStore) -> None:
    old, new, other = session_info(updated=1), session_info(updated=3), session_info(project_id="other", updated=2)
    for info in (old, other, new):
        await store.put_session(info)
    assert [s.id for s in await store.list_sessions("proj")] == [new.id, old.id]
    assert [s.id for s in await store.list_sessions()] == [new.id, other.id, old.id]


async def test_sessions_updated_at_the_same_time_are_listed_newest_created_first(store: SessionStore) -> None:
    older, newer = session_info(updated=5), session_info(updated=5)  # session ids descend: newer.id < older.id
    for info in (older, newer):
        await store.put_session(info)
    assert [s.id for s in await store.list_sessions()] == [newer.id, older.id]


async def test_children_are_the_sessions_whose_parent_is_given(store: SessionStore) -> None:
    parent = session_info()
    first, second = session_info(parent_id=parent.id), session_info(parent_id=parent.id)
    for info in (parent, second, first, session_info()):
        await store.put_session(info)
    assert [s.id for s in await store.children(parent.id)] == [first.id, second.id]


async def test_messages_come_back_in_id_order_with_their_parts_in_insertion_order(store: SessionStore) -> None:
    session = session_info()
    await store.put_session(session)
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    await store.put_message(reply)  # stored out of order on purpose
    await store.put_message(user)
    later, earlier = IDS.new("prt"), IDS.new("prt")
    await store.put_part(text_part(session.id, reply.id, "first", part_id=later))
    await store.put_part(text_part(session.id, reply.id, "second", part_id=earlier))
    await store.put_part(text_part(session.id, user.id, "question"))

    history = await store.messages(session.id)

    assert [h.info for h in history] == [user, reply]
    assert [p.text for p in history[1].parts if isinstance(p, m.TextPart)] == ["first", "second"]
    assert [p.text for p in history[0].parts if isinstance(p, m.TextPart)] == ["question"]


async def test_the_newest_message_id_is_the_last_of_the_messages(store: SessionStore) -> None:
    session, other = session_info(), session_info()
    assert await store.newest_message_id(session.id) is None
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    await store.put_message(reply)  # stored out of order on purpose
    await store.put_message(user)
    await store.put_message(user_message(other.id))  # newer, but another session's

    assert await store.newest_message_id(session.id) == reply.id == (await store.messages(session.id))[-1].info.id


async def test_the_newest_message_is_the_last_of_the_messages_without_its_parts(store: SessionStore) -> None:
    session, other = session_info(), session_info()
    assert await store.newest_message(session.id) is None
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    await store.put_message(reply)  # stored out of order on purpose
    await store.put_message(user)
    await store.put_message(user_message(other.id))  # newer, but another session's

    assert await store.newest_message(session.id) == reply == (await store.messages(session.id))[-1].info


async def test_replacing_a_part_keeps_its_position(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    await store.put_message(user)
    parts = [text_part(session.id, user.id, text) for text in ("a", "b", "c")]
    for part in parts:
        await store.put_part(part)
    parts[0].text = "a, grown"
    await store.put_part(parts[0])

    stored = await stored_message(store, session.id, user.id)

    assert stored is not None
    assert [p.text for p in stored.parts if isinstance(p, m.TextPart)] == ["a, grown", "b", "c"]


async def test_a_tool_part_moving_through_its_states_is_stored_each_time(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    reply = assistant_message(session.id, user.id)
    await store.put_message(reply)
    tool = m.ToolPart(
        id=IDS.new("prt"),
        session_id=session.id,
        message_id=reply.id,
        call_id="call_1",
        tool="bash",
        state=m.ToolStatePending(),
    )
    await store.put_part(tool)
    tool.state = m.ToolStateCompleted(
        input={"command": "ls"},
        output="a\nb",
        title="ls",
        metadata={"exit": 0},
        time=m.ToolCompletedTime(start=1, end=2),
    )
    await store.put_part(tool)
    stored = await stored_message(store, session.id, reply.id)
    assert stored is not None and stored.parts == [tool]


async def test_a_part_stored_before_its_message_appears_with_it(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    part = text_part(session.id, user.id, "early")
    await store.put_part(part)
    assert await store.messages(session.id) == []
    await store.put_message(user)
    assert (await store.messages(session.id))[0].parts == [part]


async def test_a_message_is_listed_only_under_its_own_session(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    await store.put_message(user)
    await store.put_part(text_part(session.id, user.id, "mine"))
    assert await store.messages("ses_other") == []
    assert [message.info for message in await store.messages(session.id)] == [user]


async def test_deleting_a_session_removes_its_messages_and_parts_but_not_other_sessions(store: SessionStore) -> None:
    doomed, kept = session_info(), session_info()
    for info in (doomed, kept):
        await store.put_session(info)
        user = user_message(info.id)
        await store.put_message(user)
        await store.put_part(text_part(info.id, user.id, "hi"))
    await store.delete_session(doomed.id)
    assert await store.get_session(doomed.id) is None
    assert await store.messages(doomed.id) == []
    assert len(await store.messages(kept.id)) == 1


async def test_deleting_a_message_removes_it_with_its_parts_and_nothing_else(store: SessionStore) -> None:
    session = session_info()
    await store.put_session(session)
    first, second = user_message(session.id), assistant_message(session.id, "msg_parent")
    for message in (first, second):
        await store.put_message(message)
        await store.put_part(text_part(session.id, message.id, "hi"))
    await store.delete_message("ses_other", first.id)  # another session's id names nothing here
    assert len(await store.messages(session.id)) == 2
    await store.delete_message(session.id, first.id)
    await store.delete_message(session.id, "msg_missing")
    (left,) = await store.messages(session.id)
    assert left.info == second and [p.text for p in left.parts if isinstance(p, m.TextPart)] == ["hi"]


async def test_deleting_a_part_removes_that_part_of_that_message(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    await store.put_message(user)
    keep, drop = text_part(session.id, user.id, "keep"), text_part(session.id, user.id, "drop")
    for part in (keep, drop):
        await store.put_part(part)
    await store.delete_part(session.id, "msg_other", drop.id)  # the wrong message: nothing goes
    await store.delete_part(session.id, user.id, drop.id)
    (message,) = await store.messages(session.id)
    assert message.parts == [keep]


async def test_a_message_id_another_session_holds_is_refused_and_the_message_stays(store: SessionStore) -> None:
    owner, other = session_info(), session_info()
    user = user_message(owner.id)
    await store.put_message(user)
    await store.put_part(text_part(owner.id, user.id, "mine"))
    with pytest.raises(RecordOwnerError):
        await store.put_message(user_message(other.id, user.id))
    assert await store.messages(other.id) == []
    assert [message.info for message in await store.messages(owner.id)] == [user]
    assert await store.message_session(user.id) == owner.id
    assert await store.message_session("msg_missing") is None


async def test_a_part_id_another_message_holds_is_refused_and_the_part_stays(store: SessionStore) -> None:
    session, other = session_info(), session_info()
    first, second, elsewhere = user_message(session.id), user_message(session.id), user_message(other.id)
    for message in (first, second, elsewhere):
        await store.put_message(message)
    part = text_part(session.id, first.id, "first's")
    await store.put_part(part)
    for target in (second, elsewhere):  # another message of this session, a message of another session
        with pytest.raises(RecordOwnerError):
            await store.put_part(text_part(target.session_id, target.id, "moved", part.id))
    assert [message.parts for message in await store.messages(session.id)] == [[part], []]
    assert (await store.messages(other.id))[0].parts == []


async def test_what_the_store_returns_is_a_copy(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    part = text_part(session.id, user.id, "original")
    await store.put_message(user)
    await store.put_part(part)
    part.text = "changed after put"
    first = await store.messages(session.id)
    first[0].parts.clear()
    again = await store.messages(session.id)
    assert [p.text for p in again[0].parts if isinstance(p, m.TextPart)] == ["original"]


async def test_concurrent_puts_from_many_tasks_all_land(store: SessionStore) -> None:
    session = session_info()
    user = user_message(session.id)
    await store.put_message(user)

    async def writer(n: int) -> None:
        for i in range(20):
            await store.put_part(text_part(session.id, user.id, f"{n}-{i}"))

    async with anyio.create_task_group() as tg:
        for n in range(8):
            tg.start_soon(writer, n)

    stored = await stored_message(store, session.id, user.id)
    assert stored is not None
    texts = [p.text for p in stored.parts if isinstance(p, m.TextPart)]
    assert sorted(texts) == sorted(f"{n}-{i}" for n in range(8) for i in range(20))
    for n in range(8):  # each task's own writes keep their order
        mine = [t for t in texts if t.startswith(f"{n}-")]
        assert mine == [f"{n}-{i}" for i in range(20)]


async def test_a_batch_commits_all_its_writes_together(store: SessionStore) -> None:
    session = session_info()
    async with store.batch():
        await store.put_session(session)
        for _ in range(3):
            await store.put_message(user_message(session.id))
        assert len(await store.messages(session.id)) == 3  # the batch sees its own writes
    assert len(await store.messages(session.id)) == 3


async def test_a_batch_that_raises_leaves_nothing_behind(store: SessionStore) -> None:
    session = session_info()
    await store.put_session(session)
    with pytest.raises(RuntimeError, match="boom"):
        async with store.batch():
            await store.put_message(user_message(session.id))
            async with store.batch():  # nested batches join the outer transaction
                await store.delete_session(session.id)
            raise RuntimeError("boom")
    assert await store.get_session(session.id) == session
    assert await store.messages(session.id) == []


async def test_other_tasks_wait_for_a_batch_to_finish(store: SessionStore) -> None:
    session = session_info()
    seen_during_batch: list[int] = []

    async def reader() -> None:
        seen_during_batch.append(len(await store.messages(session.id)))

    async with anyio.create_task_group() as tg, store.batch():
        await store.put_message(user_message(session.id))
        tg.start_soon(reader)
        await anyio.sleep(0.05)  # the reader runs now, and must wait
        await store.put_message(user_message(session.id))
    assert seen_during_batch == [2]


async def test_a_closed_store_refuses_calls(store: SessionStore) -> None:
    # Closing is the implementation's (whoever opened a store closes it), not the protocol's.
    assert isinstance(store, SqliteSessionStore | MemorySessionStore | PostgresSessionStore)
    await store.close()
    with pytest.raises(StoreClosedError):
        await store.get_session("ses_x")
    await store.close()  # closing twice is harmless
