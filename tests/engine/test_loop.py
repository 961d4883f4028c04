"""The turn loop through the runtime, with an in-process scripted model (reference 1)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.memory import MemoryObjectReceiveStream
from engine_fakes import FakeResolver

from strata_core import llm
from strata_core.bus import BusEvent, PartUpdated
from strata_core.engine.prompt_input import FileInput, PromptRequest, SubtaskInput, TextInput
from strata_core.engine.title import same_model
from strata_core.history import latest
from strata_core.message import (
    ABORTED_ERROR,
    AssistantMessage,
    FilePart,
    MessageWithParts,
    OutputFormat,
    TextPart,
    ToolPart,
    ToolStateError,
    ToolStateRunning,
)
from strata_core.permission.approval import approve_all
from strata_core.runtime import Runtime, open_runtime
from strata_providers.testing import ScriptedModel


@pytest.fixture
def project(tmp_path: Path) -> Path:
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "notes.txt").write_text("alpha\nbeta\n")
    return directory


def _runtime(
    project: Path, model: ScriptedModel, config: str | None = None, **options: Any
) -> AbstractAsyncContextManager[Runtime]:
    if config is not None:
        (project / "strata.json").write_text(config)
    resolver = FakeResolver({model.info.ref: model})
    env = {"HOME": str(project.parent / "home")}
    return open_runtime(project, env, models=resolver, store="memory", **options)


async def _until_a_tool_runs(events: MemoryObjectReceiveStream[BusEvent]) -> None:
    async for event in events:
        part = event.part if isinstance(event, PartUpdated) else None
        if isinstance(part, ToolPart) and isinstance(part.state, ToolStateRunning):
            return


def _scripted(script: list[dict[str, Any]]) -> ScriptedModel:
    return ScriptedModel(script)


def _request(session_id: str, text: str, model: ScriptedModel, **changes: Any) -> PromptRequest:
    return PromptRequest(session_id, [TextInput(text)], model=model.info.ref, **changes)


def _texts(message: MessageWithParts) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def _user_texts(request: llm.ModelRequest) -> list[str]:
    return [
        c.text
        for m in request.messages
        if isinstance(m, llm.UserModelMessage)
        for c in m.content
        if isinstance(c, llm.TextContent)
    ]


@pytest.mark.anyio
async def test_a_text_turn_stores_user_and_answer(project: Path) -> None:
    model = _scripted([{"text": "Hello there."}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(_request(session.id, "hi", model))
        assert isinstance(answer.info, AssistantMessage) and answer.info.finish == "stop"
        assert _texts(answer) == ["Hello there."]
        history = await runtime.sessions.messages(session.id)
        assert [m.info.role for m in history] == ["user", "assistant"]
    assert len(model.main_requests) == 1


@pytest.mark.anyio
async def test_tool_calls_keep_the_loop_going_until_a_final_answer(project: Path) -> None:
    model = _scripted(
        [
            {"tool_calls": [{"name": "read", "arguments": {"filePath": str(project / "notes.txt")}}]},
            {"text": "The notes say alpha and beta."},
        ]
    )
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(_request(session.id, "read the notes", model))
        assert _texts(answer) == ["The notes say alpha and beta."]
    second = model.main_requests[1]
    tool_message = second.messages[-1]
    assert isinstance(tool_message, llm.ToolModelMessage)
    assert "1: alpha" in tool_message.content[0].output.text


@pytest.mark.anyio
async def test_a_file_input_becomes_the_read_tools_synthetic_parts(project: Path) -> None:
    model = _scripted([{"text": "Seen."}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        request = PromptRequest(session.id, [TextInput("look"), FileInput(Path("notes.txt"))], model=model.info.ref)
        await runtime.loop.prompt(request)
        user = (await runtime.sessions.messages(session.id))[0]
    texts = _texts(user)
    assert texts[1] == f'Called the Read tool with the following input: {{"filePath":"{project / "notes.txt"}"}}'
    assert "1: alpha" in texts[2]
    assert isinstance(user.parts[-1], FilePart) and user.parts[-1].mime == "text/plain"
    # The file part itself is not sent again: its content is already in the synthetic text.
    assert _user_texts(model.main_requests[0])[:2] == ["look", texts[1]]


@pytest.mark.anyio
async def test_a_prompt_sent_while_the_loop_runs_joins_it_wrapped_as_a_queued_message(project: Path) -> None:
    model = _scripted(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 0.3", "description": "wait"}}]},
            {"text": "Both handled."},
        ]
    )
    async with _runtime(project, model, approver=approve_all) as runtime:
        session = await runtime.sessions.create()
        answers: list[MessageWithParts] = []

        async def first(runtime: Runtime = runtime, answers: list[MessageWithParts] = answers) -> None:
            answers.append(await runtime.loop.prompt(_request(session.id, "run it", model)))

        async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
            group.start_soon(first)
            await _until_a_tool_runs(events)
            answers.append(await runtime.loop.prompt(_request(session.id, "also say hi", model)))
    assert len(model.main_requests) == 2
    assert answers[0].info.id == answers[1].info.id
    wrapped = _user_texts(model.main_requests[1])[-1]
    assert wrapped.startswith("<system-reminder>\nThe user sent the following message:\nalso say hi\n")


@pytest.mark.anyio
async def test_cancel_aborts_the_turn_and_the_next_prompt_continues(project: Path) -> None:
    model = _scripted(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "long"}}]},
            {"text": "Fine, stopped."},
        ]
    )
    async with _runtime(project, model, approver=approve_all) as runtime:
        session = await runtime.sessions.create()
        async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
            group.start_soon(runtime.loop.prompt, _request(session.id, "wait a long time", model))
            await _until_a_tool_runs(events)
            await runtime.loop.cancel(session.id)
        aborted = (await runtime.sessions.messages(session.id))[-1]
        assert isinstance(aborted.info, AssistantMessage)
        assert aborted.info.error is not None and aborted.info.error.name == ABORTED_ERROR
        assert not runtime.loop.is_running(session.id)
        answer = await runtime.loop.prompt(_request(session.id, "never mind", model))
        assert _texts(answer) == ["Fine, stopped."]
    # The interrupted call still reaches the model, with a result, so the history stays valid.
    resumed = model.main_requests[1]
    results = [m for m in resumed.messages if isinstance(m, llm.ToolModelMessage)]
    assert len(results) == 1


@pytest.mark.anyio
async def test_the_step_limit_adds_the_wrap_up_prefill_but_keeps_tools(project: Path) -> None:
    config = '{"agent": {"build": {"steps": 1}}}'
    model = _scripted([{"tool_calls": [{"name": "glob", "arguments": {"pattern": "*.txt"}}]}, {"text": "Summary."}])
    async with _runtime(project, model, config) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(_request(session.id, "look around", model))
    first, second = model.main_requests
    for request in (first, second):
        prefill = request.messages[-1]
        assert isinstance(prefill, llm.AssistantModelMessage)
        assert isinstance(prefill.content[0], llm.TextContent) and "STEP LIMIT" in prefill.content[0].text
        assert request.tools


@pytest.mark.anyio
async def test_structured_output_is_captured_and_ends_the_turn(project: Path) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    model = _scripted([{"tool_calls": [{"name": "StructuredOutput", "arguments": {"answer": 42}}]}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        fmt = OutputFormat(type="json_schema", schema=schema)
        answer = await runtime.loop.prompt(_request(session.id, "what is it", model, format=fmt))
    assert isinstance(answer.info, AssistantMessage)
    assert answer.info.structured == {"answer": 42} and answer.info.finish == "tool-calls"
    (request,) = model.main_requests
    assert request.tool_choice == "required"
    tool = next(t for t in request.tools if t.name == "StructuredOutput")
    assert "$schema" not in tool.parameters
    assert "You MUST use the StructuredOutput tool" in request.system[0]


@pytest.mark.anyio
async def test_a_json_schema_turn_that_answers_in_text_records_the_error(project: Path) -> None:
    model = _scripted([{"text": "Forty-two."}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        fmt = OutputFormat(type="json_schema", schema={"type": "object"})
        answer = await runtime.loop.prompt(_request(session.id, "what is it", model, format=fmt))
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    assert (answer.info.error.name, answer.info.error.message) == (
        "StructuredOutputError",
        "Model did not produce structured output",
    )
    assert len(model.main_requests) == 1


@pytest.mark.anyio
async def test_a_title_is_asked_once_per_session(project: Path) -> None:
    model = _scripted([{"text": "One."}, {"text": "Two."}])
    async with _runtime(project, model, title_model=same_model) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(_request(session.id, "first", model))
        await runtime.loop.prompt(_request(session.id, "second", model))
    assert len(model.title_requests) == 1


@pytest.mark.anyio
async def test_an_unknown_agent_lists_the_available_ones(project: Path) -> None:
    model = _scripted([])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        with pytest.raises(LookupError, match=r'Agent not found: "nope"\. Available agents: build, .*plan'):
            await runtime.loop.prompt(_request(session.id, "hi", model, agent="nope"))


def test_turn_finished_follows_opencodes_exit_test() -> None:
    from engine_fakes import assistant

    from strata_core.message import MessageTime, ModelRef, PartTime, ToolStateError, UserMessage

    user = MessageWithParts(
        UserMessage(id="msg_1", session_id="s", time=MessageTime(1), agent="build", model=ModelRef("p", "m"))
    )

    def answer(finish: str | None, *parts: Any, message_id: str = "msg_2") -> MessageWithParts:
        return MessageWithParts(assistant("s", message_id, finish=finish), list(parts))

    def tool(interrupted: bool) -> ToolPart:
        state = ToolStateError(
            input={}, error="x", time=PartTime(1, 2), metadata={"interrupted": True} if interrupted else None
        )
        return ToolPart(id="prt_1", session_id="s", message_id="msg_2", call_id="c", tool="bash", state=state)

    assert latest([user, answer("stop")]).turn_finished
    assert not latest([user, answer(None)]).turn_finished
    assert not latest([user, answer("tool-calls")]).turn_finished
    assert not latest([user, answer("stop", tool(False))]).turn_finished
    assert latest([user, answer("stop", tool(True))]).turn_finished
    # After the user message in stored order, whatever the ids say (OpenCode compares ids).
    assert latest([user, answer("stop", message_id="msg_0")]).turn_finished
    assert not latest([answer("stop", message_id="msg_2"), user]).turn_finished


@pytest.mark.anyio
async def test_manual_compaction_summarises_without_carrying_on(project: Path) -> None:
    model = _scripted([{"text": "First answer."}, {"text": "## Goal\n- summary"}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        await runtime.loop.prompt(_request(session.id, "hello", model))
        summary = await runtime.loop.compact(session.id)
        history = await runtime.sessions.messages(session.id)
    assert isinstance(summary.info, AssistantMessage) and summary.info.summary
    assert _texts(summary) == ["## Goal\n- summary"]
    assert [m.info.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert len(model.main_requests) == 2


@pytest.mark.anyio
async def test_cancelling_the_callers_scope_aborts_the_turn(project: Path) -> None:
    model = _scripted(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30", "description": "long"}}]},
            {"text": "Resumed."},
        ]
    )
    async with _runtime(project, model, approver=approve_all) as runtime:
        session = await runtime.sessions.create()
        async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
            group.start_soon(runtime.loop.prompt, _request(session.id, "wait", model))
            await _until_a_tool_runs(events)
            group.cancel_scope.cancel()
        aborted = (await runtime.sessions.messages(session.id))[-1]
        assert isinstance(aborted.info, AssistantMessage) and aborted.info.error is not None
        assert aborted.info.error.name == ABORTED_ERROR
        assert not runtime.loop.is_running(session.id)
        assert _texts(await runtime.loop.prompt(_request(session.id, "go on", model))) == ["Resumed."]


@pytest.mark.anyio
async def test_a_subtask_the_user_starts_runs_the_task_tool_without_a_parent_model_call(project: Path) -> None:
    model = _scripted([{"text": "Child found two notes."}, {"text": "Summarised for you."}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        subtask = SubtaskInput("count the notes", "Count notes", "general", command="review")
        answer = await runtime.loop.prompt(PromptRequest(session.id, [subtask], model=model.info.ref))
        history = await runtime.sessions.messages(session.id)
        (child,) = await runtime.sessions.children(session.id)
    child_call, parent_call = model.main_requests
    assert _user_texts(child_call) == ["count the notes"]
    task_answer = history[1]
    assert isinstance(task_answer.info, AssistantMessage) and task_answer.info.agent == "general"
    (part,) = [p for p in task_answer.parts if isinstance(p, ToolPart)]
    assert part.tool == "task" and part.state.status == "completed"
    assert f'<task id="{child.id}"' in str(part.state.output)
    # The command's follow-up asks the model to summarise; the subtask itself shows as a tool run by the user.
    assert _user_texts(parent_call)[0] == "The following tool was executed by the user"
    assert _user_texts(parent_call)[-1] == "Summarize the task tool output above and continue with your task."
    assert _texts(answer) == ["Summarised for you."]


@pytest.mark.anyio
async def test_cancelling_a_user_started_subtask_records_the_abort(project: Path) -> None:
    model = _scripted([{"text": "Child is thinking", "hang": True}])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        subtask = SubtaskInput("think hard", "Think", "general")
        async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:
            group.start_soon(runtime.loop.prompt, PromptRequest(session.id, [subtask], model=model.info.ref))
            await _until_a_tool_runs(events)
            await runtime.loop.cancel(session.id)
        task_answer = (await runtime.sessions.messages(session.id))[-1]
    assert isinstance(task_answer.info, AssistantMessage) and task_answer.info.error is not None
    assert task_answer.info.error.name == ABORTED_ERROR
    (part,) = [p for p in task_answer.parts if isinstance(p, ToolPart)]
    assert isinstance(part.state, ToolStateError) and part.state.error == "Cancelled"


@pytest.mark.anyio
async def test_overflowing_again_right_after_a_compaction_stops_instead_of_compacting_forever(project: Path) -> None:
    overflow = {"status": 400, "code": "context_length_exceeded", "message": "maximum context length is 8192 tokens"}
    model = _scripted([overflow, {"text": "## Goal\n- summary"}, overflow])
    async with _runtime(project, model) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(_request(session.id, "a question far too long", model))
    assert len(model.main_requests) == 3
    assert isinstance(answer.info, AssistantMessage) and answer.info.error is not None
    assert answer.info.error.name == "ContextOverflowError"
    assert answer.info.error.message == "Context still exceeds the model limit after compaction"
