"""An imported OpenCode session is continued by the next prompt, whatever its ids say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from strata_core import llm
from strata_core.clock import FrozenClock
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.ids import Ids
from strata_core.message import AssistantMessage, TextPart, UserMessage
from strata_core.runtime import open_runtime
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio

EXPORT = Path(__file__).parent / "fixtures" / "opencode-1.14-export.json"
IMPORTED_ROLES = ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    return project, {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}


async def test_an_imported_session_whose_ids_sort_after_ours_is_answered_with_its_whole_history(
    tmp_path: Path,
) -> None:
    text = EXPORT.read_text()
    exported = json.loads(text)["messages"]
    # Strata's clock an hour behind the machine that recorded the export: every id it makes sorts first.
    clock = FrozenClock(exported[0]["info"]["time"]["created"] - 3_600_000)
    assert Ids(clock).new("msg") < exported[0]["info"]["id"]
    project, env = _setup(tmp_path)
    model = ScriptedModel([{"text": "Carried on."}])
    async with open_runtime(project, env, models=ScriptedResolver(model), store="memory", clock=clock) as runtime:
        imported = await runtime.sessions.import_session(text)
        answer = await runtime.loop.prompt(PromptRequest(imported.info.id, [TextInput("and the next test?")]))
        history = await runtime.sessions.messages(imported.info.id)

    (request,) = model.main_requests
    assert [message.role for message in request.messages] == [*IMPORTED_ROLES, "user"]
    question = request.messages[-1]
    assert isinstance(question, llm.UserModelMessage)
    assert any(isinstance(c, llm.TextContent) and "and the next test?" in c.text for c in question.content)
    assert [h.info.id for h in history[:4]] == [m["info"]["id"] for m in exported]
    assert isinstance(history[4].info, UserMessage) and history[5].info.id == answer.info.id
    assert isinstance(answer.info, AssistantMessage) and answer.info.parent_id == history[4].info.id
    assert [p.text for p in answer.parts if isinstance(p, TextPart)] == ["Carried on."]
    ids = [h.info.id for h in history]
    assert ids == sorted(ids)  # what Strata added sorts after the import, as OpenCode will read it back
