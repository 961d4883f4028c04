"""An import keeps its export's ids only where they are free: a message or part id another session holds, or one
the export uses twice, is refused by name (nothing stored), and `new_ids` imports a copy instead."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from strata_core.clock import FrozenClock
from strata_core.ids import Ids
from strata_core.session.record_ids import ImportIdsTakenError
from strata_core.session.service import SessionService
from strata_core.session.store import SessionStore

pytestmark = pytest.mark.anyio

EXPORT = Path(__file__).parent / "fixtures" / "opencode-1.14-export.json"
NOW = 1_780_000_000_000


def service(store: SessionStore) -> SessionService:
    return SessionService(store, "strata-project", "/work/here", clock=FrozenClock(NOW), ids=Ids(FrozenClock(NOW)))


def export() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(EXPORT.read_text())
    return document


def under_another_session_id(document: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(document)
    changed["info"]["id"] = "ses_zzzzcopy0000000000000000"
    return changed


async def test_a_copy_under_another_session_id_is_refused_naming_the_message_and_its_session(
    store: SessionStore,
) -> None:
    svc = service(store)
    original = (await svc.import_session(export())).info.id
    first_message = export()["messages"][0]["info"]["id"]

    with pytest.raises(ImportIdsTakenError) as refused:
        await svc.import_session(under_another_session_id(export()))

    assert refused.value.record_id == first_message
    assert f"its message {first_message} is already stored in {original}" in str(refused.value)
    assert [s.id for s in await svc.list_sessions()] == [original]


async def test_with_new_ids_a_copy_under_another_session_id_is_imported_whole(store: SessionStore) -> None:
    svc = service(store)
    original = (await svc.import_session(export())).info
    copied = await svc.import_session(under_another_session_id(export()), new_ids=True)

    assert copied.info.id not in (original.id, "ses_zzzzcopy0000000000000000")
    kept = await svc.messages(original.id)
    made = await svc.messages(copied.info.id)
    assert [len(h.parts) for h in made] == [len(h.parts) for h in kept]
    assert not {h.info.id for h in made} & {h.info.id for h in kept}


async def test_a_part_id_the_export_uses_in_two_messages_is_refused_and_nothing_is_stored(
    store: SessionStore,
) -> None:
    document = export()
    reused = copy.deepcopy(document["messages"][0]["parts"][0])
    document["messages"][1]["parts"].append(reused)
    svc = service(store)

    with pytest.raises(ImportIdsTakenError, match=f"the export uses the id {reused['id']} twice"):
        await svc.import_session(document)

    assert await svc.list_sessions() == []
    result = await svc.import_session(document, new_ids=True)
    history = await svc.messages(result.info.id)
    assert len({p.id for h in history for p in h.parts}) == sum(len(h.parts) for h in history) == result.parts


async def test_a_message_id_the_export_uses_twice_is_refused_and_with_new_ids_both_are_kept(
    store: SessionStore,
) -> None:
    document = export()
    twice = copy.deepcopy(document["messages"][0])
    twice["parts"] = []
    document["messages"].append(twice)
    svc = service(store)

    with pytest.raises(ImportIdsTakenError, match=f"the export uses the id {twice['info']['id']} twice"):
        await svc.import_session(document)

    result = await svc.import_session(document, new_ids=True)
    assert len(await svc.messages(result.info.id)) == len(document["messages"])
