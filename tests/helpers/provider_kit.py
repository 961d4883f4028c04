"""Helpers for the provider tests: a model of either wire pointed at a ScriptedServer, and event collection."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, TypeVar

import attrs
import httpx

from strata_core.llm import (
    Finish,
    LanguageModel,
    ModelInfo,
    ModelLimits,
    ModelRequest,
    StreamEvent,
    TextContent,
    ToolDefinition,
    UserModelMessage,
)
from strata_providers.anthropic_messages import AnthropicMessagesModel
from strata_providers.deadlines import Deadlines
from strata_providers.openai_chat import OpenAIChatModel
from strata_providers.retry import RetryPolicy
from strata_providers.sse import Endpoint
from strata_providers.testing import ScriptedServer

E = TypeVar("E", bound=StreamEvent)
Wire = Literal["chat", "messages"]
WIRES: tuple[Wire, ...] = ("chat", "messages")
NPM = {"chat": "@ai-sdk/openai-compatible", "messages": "@ai-sdk/anthropic"}
READ_TOOL = ToolDefinition("read", "Read a file", {"type": "object", "properties": {"filePath": {"type": "string"}}})


@attrs.define
class RecordedSleeps:
    """A `RetryPolicy.sleep` that records the delays instead of waiting them."""

    delays: list[float] = attrs.field(factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def model_for(
    wire: Wire,
    server: ScriptedServer,
    client: httpx.AsyncClient,
    *,
    retry: RetryPolicy | None = None,
    model_id: str = "mock-model",
    output_limit: int = 0,
    deadlines: Deadlines | None = None,
) -> LanguageModel:
    info = info_for(wire, model_id=model_id, output_limit=output_limit)
    endpoint = Endpoint(server.base_url, "test-key", deadlines=deadlines or Deadlines())
    policy = retry or RetryPolicy(max_attempts=1)
    get_client: Callable[[], httpx.AsyncClient] = lambda: client  # noqa: E731
    if wire == "chat":
        return OpenAIChatModel(info, endpoint, get_client, policy)
    return AnthropicMessagesModel(info, endpoint, get_client, policy)


def info_for(wire: Wire, *, model_id: str = "mock-model", output_limit: int = 0) -> ModelInfo:
    return ModelInfo("mock", model_id, npm=NPM[wire], limits=ModelLimits(context=100_000, output=output_limit))


def user_request(
    text: str = "hi",
    *,
    tools: Sequence[ToolDefinition] = (),
    session_id: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> ModelRequest:
    return ModelRequest(
        system=("You are a test.",),
        messages=(UserModelMessage((TextContent(text),)),),
        tools=tuple(tools),
        session_id=session_id,
        headers=headers or {},
    )


TITLE_REQUEST = ModelRequest(system=("You are a title generator.",), messages=(UserModelMessage((TextContent("hi"),)),))
"""A request the scripted models take for a title request: answered without using a turn of the script."""


async def collect(model: LanguageModel, request: ModelRequest | None = None) -> list[StreamEvent]:
    async with model.stream(request or user_request()) as events:
        return [event async for event in events]


def of_type(events: Sequence[StreamEvent], kind: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, kind)]


def finish_of(events: Sequence[StreamEvent]) -> Finish:
    """The stream's last event, which must be its Finish."""
    last = events[-1]
    assert isinstance(last, Finish), f"the stream ended with {last!r}, not a Finish"
    return last
