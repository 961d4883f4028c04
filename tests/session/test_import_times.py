"""An export's times are milliseconds since 1970 that a date can name: any other number is refused by where it is,
before anything is stored (a huge one used to overflow the database's integer columns)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from strata_core.clock import FrozenClock
from strata_core.ids import Ids
from strata_core.session.export import ExportFormatError
from strata_core.session.service import SessionService
from strata_core.session.store import SessionStore

pytestmark = pytest.mark.anyio

EXPORT = Path(__file__).parent / "fixtures" / "opencode-1.14-export.json"
NOW = 1_780_000_000_000


def _session_updated(d: dict[str, Any], value: Any) -> None:
    d["info"]["time"]["updated"] = value


def _message_created(d: dict[str, Any], value: Any) -> None:
    d["messages"][1]["info"]["time"]["created"] = value


def _tool_end(d: dict[str, Any], value: Any) -> None:
    tool = next(p for p in d["messages"][1]["parts"] if p["type"] == "tool")
    tool["state"]["time"]["end"] = value


def _part_index(d: dict[str, Any]) -> int:
    return next(i for i, p in enumerate(d["messages"][1]["parts"]) if p["type"] == "tool")


PLACES: dict[str, Callable[[dict[str, Any], Any], None]] = {
    "info.time.updated": _session_updated,
    "messages[1].info.time.created": _message_created,
    "messages[1].parts[{tool}].state.time.end": _tool_end,
}


@pytest.mark.parametrize("value", [10**30, 1e308, -1, float("nan")], ids=["10**30", "1e308", "negative", "nan"])
@pytest.mark.parametrize("where", sorted(PLACES))
async def test_a_time_out_of_range_is_refused_naming_where_it_is(store: SessionStore, where: str, value: Any) -> None:
    document = json.loads(EXPORT.read_text())
    PLACES[where](document, value)
    svc = SessionService(store, "strata-project", "/work/here", clock=FrozenClock(NOW), ids=Ids(FrozenClock(NOW)))

    with pytest.raises(ExportFormatError, match=r"^invalid time at (\S+): ") as refused:
        await svc.import_session(json.dumps(document))

    assert str(refused.value).split()[3] == where.format(tool=_part_index(document)) + ":"
    assert await svc.list_sessions() == []


async def test_the_latest_time_a_date_can_name_is_stored(store: SessionStore) -> None:
    document = json.loads(EXPORT.read_text())
    _session_updated(document, 253_402_300_799_999)
    svc = SessionService(store, "strata-project", "/work/here", clock=FrozenClock(NOW), ids=Ids(FrozenClock(NOW)))
    info = (await svc.import_session(document)).info
    assert (await svc.get(info.id)).time.updated == 253_402_300_799_999
