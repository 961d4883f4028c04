"""A custom `@tool` in a real runtime: offered, called, answered, and governed by the permission rules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from engine_harness import ask, engine, questions, scripted, stored, texts, tool_parts, tool_results

from strata_core.bus import PermissionAsked, PermissionReply, PermissionRequest
from strata_core.engine.prompt_input import PromptRequest
from strata_core.message import AssistantMessage, MessageWithParts, ToolStateCompleted, ToolStateError
from strata_core.permission.rules import no_approver_reason
from strata_core.runtime import Runtime
from strata_core.tool import FunctionTool, ToolContext, ToolFailure, tool

DENIED = "The user has specified a rule which prevents you from using this specific tool call."


class WordCounter:
    """A `word_count` tool over the project's files that remembers which files it counted."""

    def __init__(self) -> None:
        self.counted: list[str] = []

        @tool(permission_patterns=lambda args: [args["path"]])
        async def word_count(ctx: ToolContext, path: str, unique: bool = False) -> str:
            """Count the words in a text file of the project.

            Args:
                path: The file, relative to the project root.
                unique: Count each distinct word once.
            """
            self.counted.append(path)
            words = (ctx.directory / path).read_text().split()
            return str(len(set(words)) if unique else len(words))

        self.tool: FunctionTool = word_count


def count_call(path: str, call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "name": "word_count", "arguments": {"path": path}}


async def answering(
    runtime: Runtime, request: PromptRequest, reply: PermissionReply
) -> tuple[MessageWithParts, list[PermissionRequest]]:
    """Run a prompt answering every permission question with `reply`; the answer and the questions."""
    asked: list[PermissionRequest] = []
    async with anyio.create_task_group() as group, runtime.bus.subscribe() as events:

        async def answer() -> None:
            async for event in events:
                if isinstance(event, PermissionAsked):
                    asked.append(event.request)
                    questions(runtime).reply(event.request.id, reply)

        group.start_soon(answer)
        with anyio.fail_after(10):
            result = await runtime.loop.prompt(request)
        group.cancel_scope.cancel()
    return result, asked


def offered(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The tool definitions of a chat-completions request, by name."""
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


@pytest.mark.anyio
async def test_a_decorated_tool_is_offered_called_and_its_result_sent_back(project: Path, env: dict[str, str]) -> None:
    counter = WordCounter()
    script: list[dict[str, Any]] = [{"tool_calls": [count_call("notes.txt")]}, {"text": "Two words."}]
    async with (
        scripted(script) as server,
        engine(project, env, server, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "count the words in notes.txt"))
        history = await stored(runtime, session.id)
    definition = offered(server.main_requests[0].body)["word_count"]
    assert definition["description"] == "Count the words in a text file of the project."
    assert definition["parameters"]["required"] == ["path"]
    assert definition["parameters"]["properties"]["unique"] == {
        "type": "boolean",
        "description": "Count each distinct word once.",
        "default": False,
    }
    assert counter.counted == ["notes.txt"]
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateCompleted) and part.state.output == "2"
    assert tool_results(server.main_requests[1].body) == ["2"]
    assert texts(answer) == ["Two words."]


@pytest.mark.anyio
async def test_a_custom_tool_that_raises_gives_the_model_an_error_and_the_turn_goes_on(
    project: Path, env: dict[str, str]
) -> None:
    @tool
    async def lookup(key: str) -> str:
        """Look a key up."""
        raise ToolFailure(f"No entry for {key}")

    call = {"id": "call_1", "name": "lookup", "arguments": {"key": "x"}}
    bad = {"id": "call_2", "name": "lookup", "arguments": {"key": 5}}
    script: list[dict[str, Any]] = [{"tool_calls": [call, bad]}, {"text": "Nothing there."}]
    async with scripted(script) as server, engine(project, env, server, tools=[lookup]) as runtime:
        session = await runtime.sessions.create()
        answer = await runtime.loop.prompt(ask(session.id, "look x up"))
    results = tool_results(server.main_requests[1].body)
    assert results[0] == "No entry for x"
    assert results[1].startswith("The lookup tool was called with invalid arguments: SchemaError(Expected string")
    assert texts(answer) == ["Nothing there."]


@pytest.mark.anyio
@pytest.mark.parametrize("rule", [{"word_count": "deny"}, {"word_*": "deny"}])
async def test_a_tool_denied_outright_is_not_offered_and_a_call_to_it_never_runs(
    rule: dict[str, str], project: Path, env: dict[str, str]
) -> None:
    counter = WordCounter()
    script: list[dict[str, Any]] = [{"tool_calls": [count_call("notes.txt")]}, {"text": "Could not."}]
    config = {"permission": rule}
    async with (
        scripted(script) as server,
        engine(project, env, server, extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "count"))
    assert "word_count" not in offered(server.main_requests[0].body)
    assert counter.counted == []
    (result,) = tool_results(server.main_requests[1].body)
    assert "Model tried to call unavailable tool 'word_count'" in result


@pytest.mark.anyio
@pytest.mark.parametrize("key", ["word_count", "word_*"])
async def test_a_deny_rule_for_the_calls_pattern_refuses_with_opencodes_message_the_model_sees(
    key: str, project: Path, env: dict[str, str]
) -> None:
    counter = WordCounter()
    (project / "secret").mkdir()
    (project / "secret" / "plan.txt").write_text("do not read\n")
    script: list[dict[str, Any]] = [
        {"tool_calls": [count_call("secret/plan.txt")]},
        {"tool_calls": [count_call("notes.txt")]},
        {"text": "ok"},
    ]
    config = {"permission": {key: {"*": "allow", "secret/*": "deny"}}}
    async with (
        scripted(script) as server,
        engine(project, env, server, extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        await runtime.loop.prompt(ask(session.id, "count"))
        history = await stored(runtime, session.id)
    refused, counted = tool_parts(history)
    assert isinstance(refused.state, ToolStateError) and refused.state.error.startswith(DENIED)
    assert tool_results(server.main_requests[1].body)[0].startswith(DENIED)
    # A configured deny does not stop the turn: the model chose another file.
    assert isinstance(counted.state, ToolStateCompleted)
    assert counter.counted == ["notes.txt"]


@pytest.mark.anyio
async def test_ask_in_a_non_interactive_run_fails_fast_never_runs_the_tool_and_stops(
    project: Path, env: dict[str, str]
) -> None:
    counter = WordCounter()
    script: list[dict[str, Any]] = [{"tool_calls": [count_call("notes.txt")]}, {"text": "unused"}]
    config = {"permission": {"word_count": "ask"}}
    async with (
        scripted(script) as server,
        engine(project, env, server, extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        with anyio.fail_after(10):
            await runtime.loop.prompt(ask(session.id, "count"))
        history = await stored(runtime, session.id)
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert part.state.error == (f"Permission 'word_count' for notes.txt needs approval, but {no_approver_reason()}")
    assert counter.counted == []
    assert len(server.main_requests) == 1


def _two_counts() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [count_call("notes.txt", "call_1")]},
        {"tool_calls": [count_call("src/app.py", "call_2")]},
        {"text": "Counted."},
    ]


@pytest.mark.anyio
async def test_ask_answered_once_runs_and_asks_again_for_the_next_call(project: Path, env: dict[str, str]) -> None:
    counter = WordCounter()
    config = {"permission": {"word_count": "ask"}}
    async with (
        scripted(_two_counts()) as server,
        engine(project, env, server, mode="interactive", extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        _, asked = await answering(runtime, ask(session.id, "count both"), "once")
    assert [(r.permission, r.patterns, r.always) for r in asked] == [
        ("word_count", ("notes.txt",), ("*",)),
        ("word_count", ("src/app.py",), ("*",)),
    ]
    assert asked[0].metadata == {"input": {"path": "notes.txt"}} and asked[0].call_id == "call_1"
    assert counter.counted == ["notes.txt", "src/app.py"]
    assert len(server.main_requests) == 3


@pytest.mark.anyio
async def test_ask_answered_always_approves_the_tool_for_the_rest_of_the_session(
    project: Path, env: dict[str, str]
) -> None:
    counter = WordCounter()
    config = {"permission": {"word_count": "ask"}}
    async with (
        scripted(_two_counts()) as server,
        engine(project, env, server, mode="interactive", extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        _, asked = await answering(runtime, ask(session.id, "count both"), "always")
    assert [r.patterns for r in asked] == [("notes.txt",)]
    assert counter.counted == ["notes.txt", "src/app.py"]


@pytest.mark.anyio
async def test_ask_answered_reject_never_runs_the_tool_and_stops_the_turn(project: Path, env: dict[str, str]) -> None:
    counter = WordCounter()
    config = {"permission": {"word_count": "ask"}}
    async with (
        scripted(_two_counts()) as server,
        engine(project, env, server, mode="interactive", extra_config=config, tools=[counter.tool]) as runtime,
    ):
        session = await runtime.sessions.create()
        answer, asked = await answering(runtime, ask(session.id, "count both"), "reject")
        history = await stored(runtime, session.id)
    assert len(asked) == 1 and counter.counted == []
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateError)
    assert part.state.error == "The user rejected permission to use this specific tool call."
    assert isinstance(answer.info, AssistantMessage) and answer.info.finish == "tool-calls"
    assert len(server.main_requests) == 1


@pytest.mark.anyio
async def test_an_agents_own_rule_applies_to_that_agent_only(project: Path, env: dict[str, str]) -> None:
    counter = WordCounter()
    # build's refused ask ends its turn after the first step; reviewer's turn takes the rest of the script.
    script: list[dict[str, Any]] = [{"tool_calls": [count_call("notes.txt", "call_1")]}]
    script += [{"tool_calls": [count_call("notes.txt", "call_2")]}, {"text": "b"}]
    config = {"agent": {"build": {"permission": {"word_count": "ask"}}, "reviewer": {"mode": "primary"}}}
    async with (
        scripted(script) as server,
        engine(project, env, server, extra_config=config, tools=[counter.tool]) as runtime,
    ):
        build = await runtime.sessions.create()
        await runtime.loop.prompt(ask(build.id, "count", agent="build"))
        reviewer = await runtime.sessions.create()
        await runtime.loop.prompt(ask(reviewer.id, "count", agent="reviewer"))
        build_parts = tool_parts(await stored(runtime, build.id))
        reviewer_parts = tool_parts(await stored(runtime, reviewer.id))
    assert isinstance(build_parts[0].state, ToolStateError)
    assert f"needs approval, but {no_approver_reason()}" in build_parts[0].state.error
    assert isinstance(reviewer_parts[0].state, ToolStateCompleted)
    assert counter.counted == ["notes.txt"]


@pytest.mark.anyio
async def test_a_builtin_that_asks_for_itself_is_still_asked_exactly_once(project: Path, env: dict[str, str]) -> None:
    (project / ".env").write_text("TOKEN=x\n")
    read = {"id": "call_1", "name": "read", "arguments": {"filePath": str(project / ".env")}}
    script: list[dict[str, Any]] = [{"tool_calls": [read]}, {"text": "Read it."}]
    async with (
        scripted(script) as server,
        engine(project, env, server, mode="interactive", tools=[]) as runtime,
    ):
        session = await runtime.sessions.create()
        _, asked = await answering(runtime, ask(session.id, "read .env"), "once")
        history = await stored(runtime, session.id)
    assert [(r.permission, r.patterns) for r in asked] == [("read", (".env",))]
    (part,) = tool_parts(history)
    assert isinstance(part.state, ToolStateCompleted) and "TOKEN=x" not in part.state.output  # not stored
    assert "TOKEN=x" in tool_results(server.main_requests[1].body)[0]  # but shown
