"""One prompt path: a turn's system text is whatever the SystemPrompt service's `build` returns, on both wires."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from attrs import define, field
from engine_harness import Script, ask, engine, scripted

from strata_core.prompt.system import AssembledSystemPrompt, PromptLayer, SystemPromptRequest
from strata_core.runtime import overrides
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget

WIRES = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}


@define
class HouseRules:
    """An embedder's own system prompt: one line naming the agent and the model, and what it was asked for."""

    requests: list[SystemPromptRequest] = field(factory=list)

    async def build(self, request: SystemPromptRequest) -> AssembledSystemPrompt:
        self.requests.append(request)
        text = f"House rules for {request.agent.name} on {request.model.id}: answer in haiku."
        return AssembledSystemPrompt(text, [PromptLayer("agent", "house-rules", len(text))])


@define
class Rendezvous:
    """A system prompt and a tool description that each wait for the other to start: a step's request is only
    built if the SystemPrompt's `build` runs concurrently with the tools' resolution."""

    name: str = "rendezvous"
    build_started: anyio.Event = field(factory=anyio.Event)
    described: anyio.Event = field(factory=anyio.Event)

    async def build(self, request: SystemPromptRequest) -> AssembledSystemPrompt:
        self.build_started.set()
        await self.described.wait()
        return AssembledSystemPrompt("Met halfway.", [PromptLayer("agent", "rendezvous", 12)])

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {}}

    async def description(self, target: ToolTarget) -> str:
        self.described.set()
        await self.build_started.wait()
        return "Waits for the system prompt."

    def permission(self, args: Mapping[str, Any]) -> ToolPermission:
        return ToolPermission(self.name, ("*",))

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("met")


def system_text(body: Any) -> str:
    """The system prompt as sent: the first chat message, or the Messages API's `system` blocks joined."""
    if "system" in body:
        return "".join(block["text"] for block in body["system"])
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


@pytest.mark.parametrize("wire", sorted(WIRES))
@pytest.mark.anyio
async def test_a_replaced_system_prompt_is_what_the_model_receives(
    project: Path, env: dict[str, str], wire: str
) -> None:
    rules = HouseRules()
    script: Script = [
        {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}}]},
        {"text": "Notes, in haiku."},
    ]
    with overrides(system_prompt=rules):
        async with scripted(script) as server, engine(project, env, server, npm=WIRES[wire]) as rt:
            session = await rt.sessions.create()
            await rt.loop.prompt(ask(session.id, "list the notes", system="Be brief."))
    sent = [system_text(request.body) for request in server.main_requests]
    assert sent == ["House rules for build on mock-model: answer in haiku."] * 2
    assert [(r.agent.name, r.model.id, r.user_system, r.json_schema) for r in rules.requests] == [
        ("build", "mock-model", "Be brief.", False)
    ] * 2


@pytest.mark.anyio
async def test_the_system_prompt_is_built_while_the_tools_are_resolved(project: Path, env: dict[str, str]) -> None:
    both = Rendezvous()
    with overrides(system_prompt=both):
        async with scripted([{"text": "Hi."}]) as server, engine(project, env, server, tools=[both]) as rt:
            session = await rt.sessions.create()
            with anyio.fail_after(10):  # one waiting for the other, in turn, would never finish
                await rt.loop.prompt(ask(session.id, "hi"))
    (request,) = server.main_requests
    assert system_text(request.body) == "Met halfway."
    assert "rendezvous" in [tool["function"]["name"] for tool in request.body["tools"]]
