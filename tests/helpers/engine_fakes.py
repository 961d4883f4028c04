"""Small doubles for engine unit tests: a scripted model, a few tools, and a plain executor."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any, TypedDict

import anyio
from attrs import define, field

from strata_core import llm
from strata_core.clock import SystemClock
from strata_core.ids import Ids
from strata_core.message import AssistantMessage, MessageTime, PathInfo
from strata_core.tool.contract import ToolContext, ToolPermission, ToolResult, ToolTarget
from strata_core.tool.runner import ToolCallOutcome, run_call

HANG = object()
"""Put in a script to make the stream wait forever at that point (until cancelled)."""

Script = Sequence[llm.StreamEvent | object]

IDS = Ids(SystemClock())


class PartOwner(TypedDict):
    """The fields naming the message a part belongs to, spread into each part's constructor."""

    session_id: str
    message_id: str


"""One id generator for a test module's records, so they sort in the order they were made."""


@define
class TickingClock:
    """A `Clock` that moves on one millisecond each time it is read: distinct, ordered times in one test."""

    ms: int = 1000

    def now_ms(self) -> int:
        self.ms += 1
        return self.ms

    def today(self) -> date:
        return date(2026, 1, 1)


@define
class FakeModel:
    """Streams one scripted step per call and records every request it got."""

    scripts: list[Script]
    info: llm.ModelInfo = field(factory=lambda: llm.ModelInfo("fake", "fake-model"))
    requests: list[llm.ModelRequest] = field(factory=list)

    @asynccontextmanager
    async def stream(self, request: llm.ModelRequest) -> AsyncIterator[AsyncIterator[llm.StreamEvent]]:
        self.requests.append(request)
        script = self.scripts.pop(0)

        async def events() -> AsyncIterator[llm.StreamEvent]:
            for item in script:
                if item is HANG:
                    await anyio.sleep_forever()
                yield item  # type: ignore[misc]

        yield events()


def text_step(text: str, reason: llm.FinishReason = "stop", usage: llm.Usage | None = None) -> list[Any]:
    return [
        llm.TextStart("t"),
        *(llm.TextDelta("t", word) for word in re.findall(r"\s*\S+\s*", text)),
        llm.TextEnd("t"),
        llm.Finish(reason, usage or llm.Usage(input_tokens=10, output_tokens=5)),
    ]


def tool_step(*calls: tuple[str, str, Mapping[str, Any]]) -> list[Any]:
    events: list[Any] = []
    for call_id, name, args in calls:
        events += [llm.ToolInputStart(call_id, name), llm.ToolCall(call_id, name, dict(args), raw_input="{}")]
    return [*events, llm.Finish("tool-calls", llm.Usage(input_tokens=10, output_tokens=5))]


@define
class FuncTool:
    """A tool whose execute is a given coroutine function."""

    name: str
    run: Callable[[Mapping[str, Any], ToolContext], Any]

    def parameters(self) -> Mapping[str, Any]:
        return {"type": "object", "properties": {}}

    async def description(self, target: ToolTarget) -> str:
        return f"The {self.name} tool."

    def permission(self, args: Mapping[str, Any]) -> ToolPermission | None:
        return None  # asks for itself, through `ctx.ask`, when a test is about permissions

    async def execute(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        result = await self.run(args, ctx)
        return result if isinstance(result, ToolResult) else ToolResult(output=str(result))


async def plain_executor(
    tools: Mapping[str, Any],
    name: str,
    raw_args: Mapping[str, Any] | None,
    ctx: ToolContext,
    *,
    parse_error: str | None = None,
    agent_ruleset: Sequence[Any] | None = None,
) -> ToolCallOutcome:
    """The real runner, with truncation files kept in this test's home."""
    return await run_call(tools, name, raw_args, ctx, parse_error=parse_error, agent_ruleset=agent_ruleset)


def assistant(session_id: str = "ses_1", message_id: str = "msg_2", **changes: Any) -> AssistantMessage:
    fields: dict[str, Any] = {
        "parent_id": "msg_1",
        "time": MessageTime(1),
        "model_id": "fake-model",
        "provider_id": "fake",
        "mode": "build",
        "agent": "build",
        "path": PathInfo("/tmp", "/"),
        **changes,
    }
    return AssistantMessage(id=message_id, session_id=session_id, **fields)


def tool_context(session_id: str = "ses_1", directory: Path = Path("/tmp")) -> ToolContext:
    return ToolContext(
        session_id=session_id,
        message_id="",
        call_id="",
        agent="build",
        ruleset=(),
        directory=directory,
        worktree=directory,
    )


@define
class FakeResolver:
    """Models by `provider/model`; `small` answers `small_model()`."""

    models: dict[str, Any]
    small: Any = None

    def resolve(self, ref: str) -> Any:
        if ref not in self.models:
            raise llm.ModelNotFoundError(f"Model not found: {ref}.")
        return self.models[ref]

    def default_model(self) -> Any:
        return next(iter(self.models.values()))

    def small_model(self, provider_id: str) -> Any:
        return self.small


@define
class FakeAgents:
    agents: dict[str, Any]

    async def get(self, name: str) -> Any:
        return self.agents.get(name)

    async def list(self) -> list[Any]:
        return list(self.agents.values())

    async def default_agent(self) -> Any:
        return self.agents["build"]


@define
class HistoryBuilder:
    """Writes a session's history straight into a store, for tests that start mid-conversation."""

    store: Any
    session_id: str = "ses_1"
    model: tuple[str, str] = ("fake", "fake-model")
    _ids: list[str] = field(factory=list)

    def _id(self, prefix: str) -> str:
        return IDS.new(prefix)  # type: ignore[arg-type]

    async def user(self, *texts: str, agent: str = "build", parts: Sequence[Any] = ()) -> str:
        from strata_core.message import ModelRef, TextPart, UserMessage

        info = UserMessage(
            id=self._id("msg"),
            session_id=self.session_id,
            time=MessageTime(1),
            agent=agent,
            model=ModelRef(*self.model),
        )
        await self.store.put_message(info)
        for text in texts:
            await self.store.put_part(
                TextPart(id=self._id("prt"), session_id=self.session_id, message_id=info.id, text=text)
            )
        for part in parts:
            await self.store.put_part(part(info.id))
        return info.id

    async def assistant(
        self,
        parent: str,
        text: str = "",
        *,
        tools: Sequence[tuple[str, str]] = (),
        agent: str = "build",
        **changes: Any,
    ) -> str:
        from strata_core.message import (
            StepFinishPart,
            StepStartPart,
            TextPart,
            ToolCompletedTime,
            ToolPart,
            ToolStateCompleted,
        )

        info = assistant(self.session_id, self._id("msg"), parent_id=parent, agent=agent, mode=agent, **changes)
        if info.finish is None:
            info.finish = "tool-calls" if tools else "stop"
        await self.store.put_message(info)
        base: PartOwner = {"session_id": self.session_id, "message_id": info.id}
        await self.store.put_part(StepStartPart(id=self._id("prt"), **base))
        if text:
            await self.store.put_part(TextPart(id=self._id("prt"), text=text, **base))
        for index, (tool, output) in enumerate(tools):
            state = ToolStateCompleted(
                input={"n": index}, output=output, title=tool, metadata={}, time=ToolCompletedTime(start=1, end=2)
            )
            await self.store.put_part(
                ToolPart(id=self._id("prt"), call_id=f"call_{info.id}_{index}", tool=tool, state=state, **base)
            )
        await self.store.put_part(StepFinishPart(id=self._id("prt"), reason=info.finish, **base))
        return info.id


async def stored_message(store: Any, session_id: str, message_id: str) -> Any:
    """The message with its parts as `messages()` lists them (the store's one way to read messages back)."""
    return next((message for message in await store.messages(session_id) if message.info.id == message_id), None)
