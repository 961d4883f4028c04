"""Importing exports, OpenCode's included: tolerant of old and new shapes, strict about what it overwrites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from strata_core import llm
from strata_core import message as m
from strata_core.clock import FrozenClock
from strata_core.history import to_model_messages
from strata_core.ids import Ids
from strata_core.session.export import ExportFormatError
from strata_core.session.service import SessionExistsError, SessionService
from strata_core.session.store import SessionStore

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent / "fixtures"
NOW = 1_780_000_000_000


def service(store: SessionStore) -> SessionService:
    return SessionService(store, "strata-project", "/work/here", clock=FrozenClock(NOW), ids=Ids(FrozenClock(NOW)))


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


async def test_an_opencode_export_imports_into_this_project(store: SessionStore) -> None:
    svc = service(store)
    result = await svc.import_session(fixture("opencode-1.14-export.json"))

    info = result.info
    assert info.id == "ses_23d222f47ffer48sN6T4vd7LUr"
    assert (info.project_id, info.directory) == ("strata-project", "/work/here")
    assert (info.title, info.version) == ("Fix failing division test", "1.14.24")
    assert info.summary == {"additions": 3, "deletions": 1, "files": 1}
    assert [s.id for s in await svc.list_sessions()] == [info.id]

    history = await svc.messages(info.id)
    assert [h.info.role for h in history] == ["user", "assistant", "assistant", "assistant"]
    read = history[1].parts[3]
    assert isinstance(read, m.ToolPart) and isinstance(read.state, m.ToolStateCompleted)
    assert read.call_id == "toolu_01HxQk3bVnR7tY8uJ2mW4sA6" and read.state.metadata["truncated"] is False
    reasoning = history[1].parts[1]
    assert isinstance(reasoning, m.ReasoningPart) and reasoning.metadata is not None
    assert isinstance(history[1].info, m.AssistantMessage)
    assert history[1].info.tokens == m.Tokens(input=3, output=188, cache_write=13911, total=14102)
    assert isinstance(history[2].parts[-1], m.PatchPart)


async def test_a_part_type_strata_does_not_know_is_skipped_with_a_warning(store: SessionStore) -> None:
    result = await service(store).import_session(fixture("opencode-1.14-export.json"))
    assert result.parts == 17  # 18 in the file, less the `snapshot` part
    (warning,) = result.warnings
    assert "'snapshot'" in warning and "msg_dc2dde24a001uI5oP7aS9dF1gH" in warning


async def test_an_imported_opencode_session_converts_for_the_model(store: SessionStore) -> None:
    svc = service(store)
    result = await svc.import_session(fixture("opencode-1.14-export.json"))
    model = llm.ModelInfo(provider_id="anthropic", id="claude-sonnet-4-5", npm="@ai-sdk/anthropic")

    messages = to_model_messages(await svc.messages(result.info.id), model)

    roles = [message.role for message in messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    first = messages[0]
    assert isinstance(first, llm.UserModelMessage) and len(first.content) == 3  # the text/plain file was expanded
    interrupted = messages[6]
    assert isinstance(interrupted, llm.ToolModelMessage) and interrupted.content[0].output == llm.ToolOutput(
        "text", "."
    )


async def test_an_old_opencode_export_gets_its_missing_fields_filled(store: SessionStore) -> None:
    svc = service(store)
    result = await svc.import_session(fixture("opencode-0.x-export.json"))

    user, reply = (h.info for h in await svc.messages(result.info.id))
    assert isinstance(user, m.UserMessage) and isinstance(reply, m.AssistantMessage)
    assert user.model == m.ModelRef(provider_id="opencode", model_id="grok-code")  # from the reply it got
    assert user.agent == "build"
    assert reply.agent == "build" and reply.parent_id == user.id
    finish = (await svc.messages(result.info.id))[1].parts[-1]
    assert isinstance(finish, m.StepFinishPart) and finish.reason == "unknown"
    assert result.warnings == ()


async def test_importing_over_an_existing_session_is_refused(store: SessionStore) -> None:
    svc = service(store)
    await svc.import_session(fixture("opencode-0.x-export.json"))
    with pytest.raises(SessionExistsError, match="ses_6aade4081ffe216ygZUgcUQdR1 is already stored"):
        await svc.import_session(fixture("opencode-0.x-export.json"))


async def test_a_copy_can_be_imported_under_new_ids(store: SessionStore) -> None:
    svc = service(store)
    first = await svc.import_session(fixture("opencode-1.14-export.json"))
    copy = await svc.import_session(fixture("opencode-1.14-export.json"), new_ids=True)

    assert copy.info.id != first.info.id and copy.info.title == first.info.title
    original, copied = await svc.messages(first.info.id), await svc.messages(copy.info.id)
    assert len(copied) == len(original)
    assert {h.info.id for h in copied}.isdisjoint({h.info.id for h in original})
    reply = copied[1].info
    assert isinstance(reply, m.AssistantMessage) and reply.parent_id == copied[0].info.id


async def test_a_missing_parent_makes_the_import_a_top_level_session(store: SessionStore) -> None:
    data = json.loads(fixture("opencode-0.x-export.json"))
    data["info"]["parentID"] = "ses_gone"
    result = await service(store).import_session(data)
    assert result.info.parent_id is None
    assert any("ses_gone" in w for w in result.warnings)


async def test_a_status_line_before_the_json_is_tolerated(store: SessionStore) -> None:
    text = "Exporting session: ses_6aade4081ffe216ygZUgcUQdR1" + fixture("opencode-0.x-export.json")
    result = await service(store).import_session(text)
    assert result.messages == 2


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("not json at all", "not valid JSON"),
        ({"messages": []}, "not a session export"),
        ([1, 2, 3], "not a session export"),
        ({"info": {"id": "ses_x"}, "messages": {}}, "must be a list"),
    ],
)
async def test_something_that_is_not_an_export_is_a_clear_error(
    store: SessionStore, document: Any, message: str
) -> None:
    with pytest.raises(ExportFormatError, match=message):
        await service(store).import_session(document)


async def test_malformed_records_are_skipped_or_repaired_never_fatal(store: SessionStore) -> None:
    data: dict[str, Any] = {
        "info": {"id": "ses_messy", "title": 42},
        "messages": [
            "not an object",
            {"info": {"role": "robot", "id": "msg_1"}},
            {
                "info": {"role": "user", "id": "msg_2", "time": {}},
                "parts": [
                    {"type": "text", "id": "prt_1", "text": "hello", "time": "yesterday"},
                    {"type": "tool", "id": "prt_2", "tool": "bash", "state": {"status": "completed", "output": "ok"}},
                    {"type": "tool", "id": "prt_3", "tool": "bash", "state": {"status": "exploded"}},
                    {"id": "prt_4"},
                    None,
                ],
            },
        ],
    }
    result = await service(store).import_session(data)

    assert result.info.title == "Imported session"
    (history,) = await service(store).messages("ses_messy")
    assert history.info.time.created == NOW
    text, tool = history.parts
    assert isinstance(text, m.TextPart) and text.text == "hello" and text.time is None
    assert isinstance(tool, m.ToolPart) and isinstance(tool.state, m.ToolStateCompleted)
    assert tool.call_id == "prt_2" and tool.state.output == "ok"
    assert len(result.warnings) == 5
