"""The processor: one model stream into stored parts, tool runs, errors and the step's verdict (reference 8)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import pytest
from engine_fakes import (
    HANG,
    IDS,
    FakeModel,
    FuncTool,
    TickingClock,
    assistant,
    plain_executor,
    stored_message,
    text_step,
    tool_context,
    tool_step,
)

from strata_core import llm, serialization
from strata_core.bus import Bus, PermissionAsked, SessionError, SessionRetry
from strata_core.engine.compaction import compact_at
from strata_core.engine.processor import StepEnd, StepInput, StepProcessor
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    MessageWithParts,
    ReasoningPart,
    RetryPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
)
from strata_core.permission.bus_approver import BusApprover
from strata_core.permission.flow import PermissionFlow
from strata_core.permission.rules import RejectedError, Rule
from strata_core.session.memory_store import MemorySessionStore
from strata_core.tool.contract import Tool, ToolContext, ToolFailure, ToolResult


@pytest.fixture
async def store() -> AsyncIterator[MemorySessionStore]:
    async with MemorySessionStore.open() as store:
        yield store


class Harness:
    def __init__(self, store: MemorySessionStore, *, non_interactive: bool = False) -> None:
        self.store = store
        self.bus = Bus()
        self.questions = BusApprover(self.bus)
        self.permissions = PermissionFlow(IDS) if non_interactive else PermissionFlow(IDS, self.questions)
        self.processor = StepProcessor(store, self.bus, self.permissions, plain_executor, clock=TickingClock(), ids=IDS)

    async def run(
        self, model: FakeModel, tools: Mapping[str, Tool] = {}, **changes: Any
    ) -> tuple[StepEnd, MessageWithParts]:
        message = assistant(**changes)
        await self.store.put_message(message)
        step = StepInput(
            message=message,
            model=model,
            request=llm.ModelRequest(system=("sys",), messages=()),
            tools=tools,
            tool_context=tool_context(),
            compact_at=compact_at(model.info.limits),
        )
        outcome = await self.processor.process(step)
        stored = await stored_message(self.store, "ses_1", message.id)
        assert stored is not None
        # What the processor says it stored is what a fresh read of the store returns.
        assert serialization.unstructure(outcome.answer) == serialization.unstructure(stored)
        return outcome.result, stored


def _tool_parts(message: MessageWithParts) -> list[ToolPart]:
    return [p for p in message.parts if isinstance(p, ToolPart)]


@pytest.mark.anyio
async def test_a_text_step_stores_step_parts_text_usage_and_finish(store: MemorySessionStore) -> None:
    harness = Harness(store)
    usage = llm.Usage(input_tokens=120, output_tokens=7, cache_read_tokens=3)
    result, stored = await harness.run(FakeModel([text_step("Hello there friend", usage=usage)]))
    assert result == "continue"
    assert [type(p) for p in stored.parts] == [StepStartPart, TextPart, StepFinishPart]
    text = stored.parts[1]
    assert isinstance(text, TextPart) and text.text == "Hello there friend"
    assert text.time is not None and text.time.end is not None
    info = stored.info
    assert info.role == "assistant" and info.finish == "stop" and info.error is None
    assert (info.tokens.input, info.tokens.output, info.tokens.cache_read) == (120, 7, 3)
    assert info.time.completed is not None


@pytest.mark.anyio
async def test_reasoning_is_stored_and_deltas_without_a_start_are_dropped(store: MemorySessionStore) -> None:
    model = FakeModel(
        [
            [
                llm.ReasoningDelta("r0", "lost"),
                llm.ReasoningStart("r1"),
                llm.ReasoningDelta("r1", "think"),
                llm.ReasoningEnd("r1", {"anthropic": {"signature": "sig"}}),
                llm.Finish("stop"),
            ]
        ]
    )
    _, stored = await Harness(store).run(model)
    reasoning = [p for p in stored.parts if isinstance(p, ReasoningPart)]
    assert [(r.text, r.metadata) for r in reasoning] == [("think", {"anthropic": {"signature": "sig"}})]


@pytest.mark.anyio
async def test_a_tool_call_runs_and_its_part_ends_completed(store: MemorySessionStore) -> None:
    async def echo(args: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(output=f"echo {args['text']}", title="Echoed", metadata={"call": ctx.call_id})

    result, stored = await Harness(store).run(
        FakeModel([tool_step(("call_1", "echo", {"text": "hi"}))]), {"echo": FuncTool("echo", echo)}
    )
    assert result == "continue"
    (part,) = _tool_parts(stored)
    assert isinstance(part.state, ToolStateCompleted)
    assert (part.state.output, part.state.title, part.state.metadata) == (
        "echo hi",
        "Echoed",
        {"call": "call_1", "truncated": False},
    )
    assert part.state.input == {"text": "hi"}
    assert isinstance(stored.info, AssistantMessage)
    assert stored.info.finish == "tool-calls"


@pytest.mark.anyio
async def test_tools_of_one_step_run_concurrently(store: MemorySessionStore) -> None:
    # Each tool waits for the other to have started: run one after the other, they would wait forever.
    started = {"a": anyio.Event(), "b": anyio.Event()}

    def waiting_for(me: str, other: str) -> FuncTool:
        async def run(args: Mapping[str, Any], ctx: ToolContext) -> str:
            started[me].set()
            await started[other].wait()
            return me

        return FuncTool(me, run)

    tools = {"a": waiting_for("a", "b"), "b": waiting_for("b", "a")}
    with anyio.fail_after(5):
        _, stored = await Harness(store).run(FakeModel([tool_step(("c1", "a", {}), ("c2", "b", {}))]), tools)
    assert [p.state.status for p in _tool_parts(stored)] == ["completed", "completed"]


@pytest.mark.anyio
async def test_failures_become_error_results_not_exceptions(store: MemorySessionStore) -> None:
    async def fail(args: Mapping[str, Any], ctx: ToolContext) -> str:
        raise ToolFailure("file not found: a.txt")

    async def crash(args: Mapping[str, Any], ctx: ToolContext) -> str:
        raise ZeroDivisionError("division by zero")

    events = [
        llm.ToolCall("c1", "fail", {}, "{}"),
        llm.ToolCall("c2", "crash", {}, "{}"),
        llm.ToolCall("c3", "nope", {}, "{}"),
        llm.ToolCall("c4", "fail", None, "{bad json", parse_error="Expecting value at 1:2"),
        llm.Finish("tool-calls"),
    ]
    tools = {"fail": FuncTool("fail", fail), "crash": FuncTool("crash", crash)}
    result, stored = await Harness(store).run(FakeModel([events]), tools)
    assert result == "continue"
    parts = _tool_parts(stored)
    errors = [p.state.error for p in parts if isinstance(p.state, ToolStateError)]
    assert errors == ["file not found: a.txt", "division by zero"]
    # Calls that cannot run at all are rewritten to the `invalid` tool, whose answer tells the model why.
    invalid = [
        (p.tool, p.state.input["tool"], p.state.output) for p in parts if isinstance(p.state, ToolStateCompleted)
    ]
    assert invalid == [
        (
            "invalid",
            "nope",
            "The arguments provided to the tool are invalid: "
            "Model tried to call unavailable tool 'nope'. Available tools: crash, fail, invalid.",
        ),
        (
            "invalid",
            "fail",
            "The arguments provided to the tool are invalid: Invalid input for tool fail: Expecting value at 1:2",
        ),
    ]


@pytest.mark.anyio
async def test_a_capitalised_tool_name_is_repaired(store: MemorySessionStore) -> None:
    async def read(args: Mapping[str, Any], ctx: ToolContext) -> str:
        return "contents"

    _, stored = await Harness(store).run(FakeModel([tool_step(("c1", "Read", {}))]), {"read": FuncTool("read", read)})
    (part,) = _tool_parts(stored)
    assert part.tool == "read" and part.state.status == "completed"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("error", "name"),
    [
        (llm.RateLimitedError("Too many requests", status=429), "APIError"),
        (llm.AuthenticationError("Invalid API key", status=401), "ProviderAuthError"),
        (llm.TransportError("connection cut mid-stream"), "APIError"),
    ],
)
async def test_stream_failures_are_recorded_on_the_message_and_stop(
    store: MemorySessionStore, error: llm.ModelError, name: str
) -> None:
    harness = Harness(store)
    async with harness.bus.subscribe() as events:
        result, stored = await harness.run(
            FakeModel([[llm.TextStart("t"), llm.TextDelta("t", "par"), llm.StreamFailed(error)]])
        )
        published = Bus.waiting(events)
    assert result == "stop"
    assert isinstance(stored.info, AssistantMessage)
    assert stored.info.error is not None and (stored.info.error.name, stored.info.error.message) == (
        name,
        error.message,
    )
    assert any(isinstance(e, SessionError) and e.error.name == name for e in published)
    text = next(p for p in stored.parts if isinstance(p, TextPart))
    assert text.text == "par" and text.time is not None and text.time.end is not None


@pytest.mark.anyio
async def test_a_context_overflow_asks_for_compaction_without_an_error(store: MemorySessionStore) -> None:
    model = FakeModel([[llm.StreamFailed(llm.ContextOverflowError("prompt is too long"))]])
    result, stored = await Harness(store).run(model)
    assert isinstance(stored.info, AssistantMessage)
    assert result == "compact" and stored.info.error is None


@pytest.mark.anyio
async def test_a_finish_past_the_usable_context_asks_for_compaction(store: MemorySessionStore) -> None:
    model = FakeModel([text_step("big", usage=llm.Usage(input_tokens=9_000))])
    model.info = llm.ModelInfo("fake", "fake-model", limits=llm.ModelLimits(context=10_000, output=2_000))
    result, stored = await Harness(store).run(model)
    assert isinstance(stored.info, AssistantMessage)
    assert result == "compact" and stored.info.finish == "stop"


@pytest.mark.anyio
async def test_a_scheduled_retry_becomes_a_retry_part_and_an_event(store: MemorySessionStore) -> None:
    harness = Harness(store)
    retry = llm.RetryScheduled(1, 2.0, llm.RateLimitedError("Rate limited", status=429))
    async with harness.bus.subscribe() as events:
        result, stored = await harness.run(FakeModel([[retry, *text_step("ok")]]))
        published = Bus.waiting(events)
    assert result == "continue"
    retry_part = stored.parts[0]
    assert isinstance(retry_part, RetryPart) and retry_part.attempt == 1 and retry_part.error.name == "APIError"
    assert SessionRetry("ses_1", 1, 2.0, "Rate limited") in published


@pytest.mark.anyio
async def test_an_abort_mid_tool_marks_the_call_interrupted_and_the_message_aborted(store: MemorySessionStore) -> None:
    started = anyio.Event()

    async def slow(args: Mapping[str, Any], ctx: ToolContext) -> str:
        ctx.update_metadata("sleeping", {"output": "partial output"})
        started.set()
        await anyio.sleep_forever()
        return "never"

    harness = Harness(store)
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(
                harness.run, FakeModel([[*tool_step(("c1", "slow", {}))[:-1], HANG]]), {"slow": FuncTool("slow", slow)}
            )
            await started.wait()
            scope.cancel()
    stored = await stored_message(store, "ses_1", "msg_2")
    assert stored is not None
    assert stored.info.error is not None and stored.info.error.name == ABORTED_ERROR
    assert stored.info.time.completed is not None
    (part,) = _tool_parts(stored)
    assert isinstance(part.state, ToolStateError)
    assert part.state.error == "Tool execution aborted"
    assert part.state.metadata == {"output": "partial output", "interrupted": True}


@pytest.mark.anyio
async def test_a_tool_that_answers_the_abort_ends_its_call_completed_with_that_answer(
    store: MemorySessionStore,
) -> None:
    started = anyio.Event()

    async def patient(args: Mapping[str, Any], ctx: ToolContext) -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            ctx.end_on_abort(ToolResult(output="so far\n\nstopped by the user", title="patient"))
            raise
        return "never"

    harness = Harness(store)
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tool = FuncTool("patient", patient)
            tg.start_soon(harness.run, FakeModel([[*tool_step(("c1", "patient", {}))[:-1], HANG]]), {"patient": tool})
            await started.wait()
            scope.cancel()
    stored = await stored_message(store, "ses_1", "msg_2")
    assert stored is not None and stored.info.error is not None and stored.info.error.name == ABORTED_ERROR
    (part,) = _tool_parts(stored)
    assert isinstance(part.state, ToolStateCompleted)
    assert (part.state.output, part.state.title) == ("so far\n\nstopped by the user", "patient")


@pytest.mark.anyio
async def test_a_rejected_permission_is_the_tools_error_and_stops_the_turn(store: MemorySessionStore) -> None:
    async def ask_first(args: Mapping[str, Any], ctx: ToolContext) -> str:
        await ctx.ask("bash", ["make"], ["make *"], {})
        return "ran"

    harness = Harness(store)

    async def reject_when_asked() -> None:
        async with harness.bus.subscribe() as events:
            async for event in events:
                if isinstance(event, PermissionAsked):
                    assert event.request.call_id == "c1"
                    harness.questions.reply(event.request.id, "reject")
                    return

    async with anyio.create_task_group() as tg:
        tg.start_soon(reject_when_asked)
        await anyio.wait_all_tasks_blocked()
        result, stored = await harness.run(
            FakeModel([tool_step(("c1", "bash", {}))]), {"bash": FuncTool("bash", ask_first)}
        )
    assert result == "stop"
    (part,) = _tool_parts(stored)
    assert isinstance(part.state, ToolStateError) and part.state.error == str(RejectedError())


@pytest.mark.anyio
async def test_the_third_identical_call_in_a_row_asks_the_doom_loop_permission(store: MemorySessionStore) -> None:
    runs: list[str] = []

    async def read(args: Mapping[str, Any], ctx: ToolContext) -> str:
        runs.append(ctx.call_id)
        return "same"

    same = {"filePath": "a.txt"}
    harness = Harness(store, non_interactive=True)
    result, stored = await harness.run(
        FakeModel([tool_step(("c1", "read", same), ("c2", "read", same), ("c3", "read", same))]),
        {"read": FuncTool("read", read)},
    )
    assert result == "stop"
    assert sorted(runs) == ["c1", "c2"]  # concurrent calls: any order
    third = _tool_parts(stored)[2]
    assert isinstance(third.state, ToolStateError) and "Permission 'doom_loop' for read" in third.state.error


@pytest.mark.anyio
async def test_doom_loop_allowed_by_rule_lets_the_call_run(store: MemorySessionStore) -> None:
    async def read(args: Mapping[str, Any], ctx: ToolContext) -> str:
        return "same"

    harness = Harness(store, non_interactive=True)
    step_context = tool_context()
    message = assistant()
    await store.put_message(message)
    from attrs import evolve

    step = StepInput(
        message=message,
        model=FakeModel([tool_step(*((f"c{i}", "read", {}) for i in range(3)))]),
        request=llm.ModelRequest(system=(), messages=()),
        tools={"read": FuncTool("read", read)},
        tool_context=evolve(step_context, ruleset=(Rule("doom_loop", "*", "allow"),)),
    )
    assert (await harness.processor.process(step)).result == "continue"


@pytest.mark.anyio
async def test_a_tool_call_while_summarising_is_an_error(store: MemorySessionStore) -> None:
    result, stored = await Harness(store).run(FakeModel([tool_step(("c1", "read", {}))]), summary=True)
    assert result == "stop"
    assert isinstance(stored.info, AssistantMessage)
    assert stored.info.error is not None
    assert stored.info.error.message == "Tool call not allowed while generating summary: read"


@pytest.mark.anyio
async def test_tool_progress_is_stored_while_the_tool_runs(store: MemorySessionStore) -> None:
    progressed = anyio.Event()
    release = anyio.Event()

    async def bash(args: Mapping[str, Any], ctx: ToolContext) -> str:
        ctx.update_metadata("make", {"output": "line 1\n"})
        ctx.update_metadata("make", {"output": "line 1\nline 2\n"})
        progressed.set()
        await release.wait()
        return "done"

    harness = Harness(store)
    async with anyio.create_task_group() as tg:
        tg.start_soon(harness.run, FakeModel([tool_step(("c1", "bash", {}))]), {"bash": FuncTool("bash", bash)})
        await progressed.wait()
        await anyio.wait_all_tasks_blocked()
        stored = await stored_message(store, "ses_1", "msg_2")
        assert stored is not None
        (part,) = _tool_parts(stored)
        assert part.state.status == "running"
        assert part.state.metadata == {"output": "line 1\nline 2\n"}
        release.set()
