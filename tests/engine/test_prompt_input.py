"""How the user message writer turns attached files into parts (reference 16.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from engine_fakes import stored_message

from strata_core.bus import Bus
from strata_core.clock import SystemClock
from strata_core.engine.prompt_input import FileInput, PromptRequest, UserMessageWriter
from strata_core.ids import Ids
from strata_core.message import ModelRef, TextPart
from strata_core.session.memory_store import MemorySessionStore
from strata_core.tool.builtin.read import ReadTool
from strata_core.tool.contract import ToolContext


@pytest.mark.anyio
async def test_a_file_the_user_attached_is_read_without_asking_even_from_outside_the_project(
    tmp_path: Path,
) -> None:
    # The user chose the file, so like OpenCode nothing is asked, although the context's responder would.
    project, outside = tmp_path / "project", tmp_path / "elsewhere" / "outside.txt"
    project.mkdir()
    outside.parent.mkdir()
    outside.write_text("gamma\n")
    asked: list[str] = []

    async def ask(permission: str, patterns: Sequence[str], always: Sequence[str], meta: Mapping[str, Any]) -> None:
        asked.append(permission)

    ctx = ToolContext(
        session_id="ses", message_id="", call_id="", agent="build", ruleset=(), directory=project, worktree=project,
        ask=ask,
    )  # fmt: skip
    store = MemorySessionStore()
    request = PromptRequest("ses", [FileInput(outside)])
    info = await UserMessageWriter(store, Bus(), Ids(SystemClock())).write(
        request, "build", ModelRef("p", "m"), ctx, ReadTool(), 1
    )
    assert asked == []
    stored = await stored_message(store, "ses", info.info.id)
    assert stored is not None
    texts = [part.text for part in stored.parts if isinstance(part, TextPart)]
    assert "1: gamma" in texts[1]
