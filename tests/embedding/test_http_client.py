"""`http_client=`: the embedder's client serves the instruction URLs, webfetch and the model factory, so a
`MockTransport` answers them with no monkeypatch and no network."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from strata_core import llm
from strata_core.config.service import ConfigInfo
from strata_core.engine.prompt_input import PromptRequest, TextInput
from strata_core.message import ToolPart, ToolStateCompleted
from strata_core.permission.approval import approve_all
from strata_core.runtime import open_runtime
from strata_providers.testing import ScriptedModel, ScriptedResolver

pytestmark = pytest.mark.anyio


async def test_a_mock_transport_answers_the_instruction_url_and_the_factory_gets_that_client(tmp_path: Path) -> None:
    (tmp_path / "strata.json").write_text('{"instructions": ["https://rules.example/team.md"]}')
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, text="Write tests first.", headers={"content-type": "text/markdown"})

    model = ScriptedModel([{"text": "ok"}])
    handed: list[httpx.AsyncClient] = []

    def factory(config: ConfigInfo, env: Mapping[str, str], client: Any) -> llm.ModelResolver:
        handed.append(client())
        return ScriptedResolver(model)

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as mine:
        async with open_runtime(
            tmp_path, {"HOME": str(tmp_path)}, models=factory, store="memory", http_client=mine
        ) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(PromptRequest(session.id, [TextInput("hi")]))
        assert not mine.is_closed  # the embedder's client: the embedder closes it
    assert seen == ["https://rules.example/team.md"] and handed == [mine]
    assert "Instructions from: https://rules.example/team.md\nWrite tests first." in model.main_requests[0].system[0]


async def test_webfetch_goes_through_the_embedders_client(tmp_path: Path) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=f"page at {request.url.path}", headers={"content-type": "text/plain"})

    call = {"id": "c1", "name": "webfetch", "arguments": {"url": "https://docs.example/guide", "format": "text"}}
    model = ScriptedModel([{"tool_calls": [call]}, {"text": "Read it."}])
    env = {"HOME": str(tmp_path)}
    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as mine:
        resolver = ScriptedResolver(model)
        async with open_runtime(
            tmp_path, env, models=resolver, store="memory", http_client=mine, approver=approve_all
        ) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(PromptRequest(session.id, [TextInput("read the guide")]))
            history = await rt.sessions.messages(session.id)
    (part,) = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert isinstance(part.state, ToolStateCompleted) and part.state.output == "page at /guide"
