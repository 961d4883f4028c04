"""`SessionService`: create, list, fork, delete, rename, touch, export and re-import, on every store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from session_records import IDS, SteppingClock, assistant_message, text_part, user_message

from strata_core import message as m
from strata_core.project import ProjectService
from strata_core.session.export import with_usage
from strata_core.session.service import VERSION, MessageNotFoundError, SessionService, forked_title
from strata_core.session.store import SessionNotFoundError, SessionStore
from strata_core.session_info import DEFAULT_TITLE_RE

pytestmark = pytest.mark.anyio

T0 = 1_780_000_000_123  # 2026-05-28T20:26:40.123Z


def service(store: SessionStore, project_id: str = "proj") -> SessionService:
    return SessionService(store, project_id, "/work/project", clock=SteppingClock(T0), ids=IDS)


async def add_turn(svc: SessionService, session_id: str, question: str, answer: str) -> tuple[str, str]:
    user = user_message(session_id)
    reply = assistant_message(session_id, user.id)
    await svc.store.put_message(user)
    await svc.store.put_part(text_part(session_id, user.id, question))
    await svc.store.put_message(reply)
    await svc.store.put_part(text_part(session_id, reply.id, answer))
    return user.id, reply.id


async def test_a_new_session_gets_a_default_title_version_and_times(store: SessionStore) -> None:
    svc = service(store)
    info = await svc.create()
    assert info.title == "New session - 2026-05-28T20:26:40.123Z"
    assert info.has_default_title and DEFAULT_TITLE_RE.match(info.title)
    assert info.version == VERSION and VERSION.startswith("strata/")
    assert (info.project_id, info.directory) == ("proj", "/work/project")
    assert info.time.created == info.time.updated == T0
    assert await svc.get(info.id) == info


async def test_a_child_session_is_titled_as_a_child_and_listed_under_its_parent(store: SessionStore) -> None:
    svc = service(store)
    parent = await svc.create(title="work")
    child = await svc.create(parent_id=parent.id)
    assert child.title.startswith("Child session - ")
    assert [c.id for c in await svc.children(parent.id)] == [child.id]


async def test_getting_a_missing_session_says_which(store: SessionStore) -> None:
    with pytest.raises(SessionNotFoundError, match="ses_nope"):
        await service(store).get("ses_nope")


async def test_sessions_are_listed_for_this_project_newest_first(store: SessionStore) -> None:
    svc = service(store)
    first, second = await svc.create(), await svc.create()
    await service(store, "another project").create()
    assert [s.id for s in await svc.list_sessions()] == [second.id, first.id]
    await svc.touch(first.id)
    assert [s.id for s in await svc.list_sessions()] == [first.id, second.id]


async def test_renaming_and_setting_permission_update_the_record(store: SessionStore) -> None:
    svc = service(store)
    info = await svc.create()
    await svc.set_title(info.id, "Fix the parser")
    rules = [{"permission": "bash", "pattern": "*", "action": "deny"}]
    updated = await svc.set_permission(info.id, rules)
    assert updated.title == "Fix the parser" and updated.permission == rules
    assert updated.time.updated > info.time.updated
    assert await svc.get(info.id) == updated


async def test_a_fork_copies_history_up_to_and_including_a_message_under_new_ids(store: SessionStore) -> None:
    svc = service(store)
    original = await svc.create(title="Plan")
    first_user, first_reply = await add_turn(svc, original.id, "q1", "a1")
    await add_turn(svc, original.id, "q2", "a2")

    fork = await svc.fork(original.id, first_reply)

    assert fork.title == "Plan (fork #1)" and fork.parent_id is None
    copied = await svc.messages(fork.id)
    assert [[p.text for p in h.parts if isinstance(p, m.TextPart)] for h in copied] == [["q1"], ["a1"]]
    user, reply = copied[0].info, copied[1].info
    assert {user.id, reply.id}.isdisjoint({first_user, first_reply})
    assert isinstance(reply, m.AssistantMessage) and reply.parent_id == user.id
    assert all(p.session_id == fork.id and p.message_id == h.info.id for h in copied for p in h.parts)
    assert len(await svc.messages(original.id)) == 4  # the original is untouched


async def test_an_exclusive_fork_stops_before_the_message_as_opencode_does(store: SessionStore) -> None:
    svc = service(store)
    original = await svc.create()
    _, _ = await add_turn(svc, original.id, "q1", "a1")
    second_user, _ = await add_turn(svc, original.id, "q2", "a2")
    fork = await svc.fork(original.id, second_user, inclusive=False)
    assert len(await svc.messages(fork.id)) == 2


async def test_forking_without_a_message_copies_everything_and_numbers_the_title(store: SessionStore) -> None:
    svc = service(store)
    original = await svc.create(title="Plan (fork #1)")
    await add_turn(svc, original.id, "q", "a")
    fork = await svc.fork(original.id)
    assert fork.title == "Plan (fork #2)"
    assert len(await svc.messages(fork.id)) == 2
    with pytest.raises(MessageNotFoundError, match="msg_missing"):
        await svc.fork(original.id, "msg_missing")


def test_fork_titles_count_up() -> None:
    assert forked_title("Plan") == "Plan (fork #1)"
    assert forked_title("Plan (fork #9)") == "Plan (fork #10)"
    assert forked_title("(fork #1)") == "(fork #1) (fork #1)"


async def test_deleting_a_session_deletes_its_children_recursively(store: SessionStore) -> None:
    svc = service(store)
    root = await svc.create()
    child = await svc.create(parent_id=root.id)
    grandchild = await svc.create(parent_id=child.id)
    survivor = await svc.create()
    await add_turn(svc, grandchild.id, "q", "a")

    await svc.delete(root.id)

    for gone in (root, child, grandchild):
        assert await store.get_session(gone.id) is None
    assert await store.messages(grandchild.id) == []
    assert [s.id for s in await svc.list_sessions()] == [survivor.id]
    with pytest.raises(SessionNotFoundError):
        await svc.delete(root.id)


async def test_an_export_has_opencodes_shape_and_camel_case_keys(store: SessionStore) -> None:
    svc = service(store)
    info = await svc.create(title="Export me")
    user_id, reply_id = await add_turn(svc, info.id, "q", "a")

    data = await svc.export(info.id)

    assert set(data) == {"info", "messages"}
    assert data["info"]["projectID"] == "proj" and data["info"]["title"] == "Export me"
    assert data["info"]["slug"].startswith("strata-")  # OpenCode's importer requires one
    first, second = data["messages"]
    assert first["info"]["id"] == user_id and first["info"]["model"] == {"providerID": "test", "modelID": "model"}
    assert second["info"]["parentID"] == user_id and second["info"]["tokens"]["cache"] == {"read": 0, "write": 0}
    assert second["parts"][0]["messageID"] == reply_id and second["parts"][0]["sessionID"] == info.id
    json.dumps(data)  # plain JSON values all the way down


async def test_an_export_imports_back_unchanged_after_the_session_is_deleted(store: SessionStore) -> None:
    svc = service(store)
    info = await svc.create(title="Round trip", permission=[{"permission": "edit", "pattern": "*", "action": "ask"}])
    await add_turn(svc, info.id, "q1", "a1")
    await add_turn(svc, info.id, "q2", "a2")
    before = await svc.messages(info.id)
    exported = json.dumps(await svc.export(info.id), indent=2)

    await svc.delete(info.id)
    result = await svc.import_session(exported)

    # The export carries what OpenCode keeps on a session (agent, model, usage), derived from the messages.
    assert result.info == with_usage(info, before) and result.warnings == ()
    assert result.info.agent == "build" and result.info.tokens is not None
    assert (result.messages, result.parts) == (4, 4)
    assert await svc.messages(info.id) == before


def test_version_is_the_installed_package_version_read_without_importlib_metadata() -> None:
    from importlib import metadata

    assert f"strata/{metadata.version('strata-core')}" == VERSION


async def test_with_a_bus_every_change_is_published_after_it_is_stored(store: SessionStore) -> None:
    from strata_core.bus import Bus, SessionCreated, SessionDeleted, SessionUpdated

    bus = Bus()
    svc = SessionService(store, "proj", "/work/project", clock=SteppingClock(T0), ids=IDS, bus=bus)
    async with bus.subscribe() as events:
        parent = await svc.create(title="parent")
        child = await svc.create(parent_id=parent.id)
        renamed = await svc.set_title(parent.id, "renamed")
        fork = await svc.fork(parent.id)
        await svc.delete(parent.id)
        got = [events.receive_nowait() for _ in range(6)]
    changes: list[SessionCreated | SessionUpdated | SessionDeleted] = []
    for event in got:
        assert isinstance(event, SessionCreated | SessionUpdated | SessionDeleted)
        changes.append(event)
    kinds = [SessionCreated, SessionCreated, SessionUpdated, SessionCreated, SessionDeleted, SessionDeleted]
    assert [type(e) for e in changes] == kinds
    assert [e.info.id for e in changes] == [parent.id, child.id, parent.id, fork.id, child.id, parent.id]
    assert changes[2].info == renamed and await store.get_session(parent.id) is None


@pytest.mark.parametrize(("repository", "sub", "expected"), [(True, "", ""), (True, "a/b", "a/b"), (False, "w", None)])
async def test_a_session_records_its_directory_relative_to_the_worktree_as_opencode_does(
    store: SessionStore, tmp_path: Path, repository: bool, sub: str, expected: str | None
) -> None:
    """OpenCode 1.18.33 writes `path: "sub"` for a session started in `sub/` of a repository, `""` at its top,
    and outside one (worktree `/`) the directory without its leading slash."""
    root = (tmp_path / "project").resolve()
    directory = root / sub if sub else root
    directory.mkdir(parents=True)
    if repository:
        (root / ".git").mkdir()
    project = ProjectService(directory)
    svc = SessionService(store, "proj", str(directory), clock=SteppingClock(T0), ids=IDS, project=project)
    made = await svc.create()
    want = expected if expected is not None else str(directory).lstrip("/")
    assert made.path == want
    assert (await svc.fork(made.id)).path == want
    assert (await svc.export(made.id))["info"]["path"] == want
