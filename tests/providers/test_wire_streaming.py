"""Both wires decode the same scripted turns into the same events, over real HTTP from the scripted server."""

from __future__ import annotations

import httpx
import pytest
from provider_kit import WIRES, Wire, collect, finish_of, model_for, of_type, user_request

from strata_core.llm import (
    Finish,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputEnd,
    ToolInputStart,
    Usage,
)
from strata_providers.testing import ScriptedServer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("wire", WIRES)
async def test_text_arrives_as_deltas_of_one_part_then_finish_stop(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "Hello there, friend.", "chunk_size": 5}]) as server:
        events = await collect(model_for(wire, server, client))
    starts, ends = of_type(events, TextStart), of_type(events, TextEnd)
    assert len(starts) == len(ends) == 1
    assert [d.text for d in of_type(events, TextDelta)] == ["Hello", " ther", "e, fr", "iend."]
    assert {d.id for d in of_type(events, TextDelta)} == {starts[0].id}
    assert events[-1] == Finish("stop", finish_of(events).usage)
    assert isinstance(events[0], TextStart) and isinstance(events[-2], TextEnd)


@pytest.mark.parametrize("wire", WIRES)
async def test_reasoning_is_its_own_part_and_closes_before_the_text(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"reasoning": "Think first.", "text": "Answer", "chunk_size": 6}]) as server:
        events = await collect(model_for(wire, server, client))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ReasoningStart", "ReasoningDelta", "ReasoningDelta", "ReasoningEnd",
                     "TextStart", "TextDelta", "TextEnd", "Finish"]  # fmt: skip
    assert "".join(d.text for d in of_type(events, ReasoningDelta)) == "Think first."
    assert of_type(events, ReasoningStart)[0].id == of_type(events, ReasoningEnd)[0].id


async def test_anthropic_thinking_keeps_its_signature_for_replay(client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"reasoning": "Hmm.", "text": "Yes."}]) as server:
        events = await collect(model_for("messages", server, client))
    (end,) = of_type(events, ReasoningEnd)
    assert end.provider_metadata == {"anthropic": {"signature": "sig_0"}}


@pytest.mark.parametrize("wire", WIRES)
async def test_parallel_tool_calls_are_assembled_from_their_fragments(wire: Wire, client: httpx.AsyncClient) -> None:
    turn = {
        "tool_calls": [
            {"name": "read", "arguments": {"filePath": "/tmp/a.txt"}},
            {"name": "glob", "arguments": {"pattern": "**/*.py", "path": "/src"}},
        ],
        "chunk_size": 7,
    }
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for(wire, server, client))
    calls = of_type(events, ToolCall)
    assert [(c.tool_name, c.input) for c in calls] == [
        ("read", {"filePath": "/tmp/a.txt"}),
        ("glob", {"pattern": "**/*.py", "path": "/src"}),
    ]
    assert all(c.parse_error is None for c in calls)
    starts = of_type(events, ToolInputStart)
    assert [s.call_id for s in starts] == [c.call_id for c in calls]
    for call in calls:
        fragments = [d.delta for d in of_type(events, ToolInputDelta) if d.call_id == call.call_id]
        assert len(fragments) > 1 and "".join(fragments) == call.raw_input
    assert {e.call_id for e in of_type(events, ToolInputEnd)} == {c.call_id for c in calls}
    assert finish_of(events).reason == "tool-calls"


@pytest.mark.parametrize("wire", WIRES)
async def test_text_then_tool_call_in_one_turn(wire: Wire, client: httpx.AsyncClient) -> None:
    turn = {"text": "Let me look.", "tool_calls": [{"name": "read", "arguments": {"filePath": "x"}}]}
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for(wire, server, client))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("TextEnd") < kinds.index("ToolInputStart")
    assert of_type(events, ToolCall)[0].input == {"filePath": "x"}


@pytest.mark.parametrize("wire", WIRES)
async def test_tool_arguments_that_are_not_json_become_a_parse_error_not_an_exception(
    wire: Wire, client: httpx.AsyncClient
) -> None:
    turn = {"tool_calls": [{"name": "read", "arguments": '{"filePath": "x"'}]}
    async with ScriptedServer([turn]) as server:
        events = await collect(model_for(wire, server, client))
    (call,) = of_type(events, ToolCall)
    assert call.input is None and call.raw_input == '{"filePath": "x"'
    assert call.parse_error is not None and "not valid JSON" in call.parse_error


@pytest.mark.parametrize("wire", WIRES)
async def test_a_tool_call_without_arguments_has_an_empty_input(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"tool_calls": [{"name": "todoread", "arguments": ""}]}]) as server:
        events = await collect(model_for(wire, server, client))
    assert of_type(events, ToolCall)[0].input == {}


async def test_chat_usage_counts_cached_input_and_reasoning_output_separately(client: httpx.AsyncClient) -> None:
    usage = {"input": 1200, "output": 80, "reasoning": 40, "cache_read": 800}
    async with ScriptedServer([{"text": "ok", "usage": usage}]) as server:
        events = await collect(model_for("chat", server, client))
    # The server reports prompt_tokens=2000 (800 cached) and completion_tokens=120 (40 reasoning).
    assert finish_of(events).usage == Usage(
        input_tokens=1200, output_tokens=80, reasoning_tokens=40, cache_read_tokens=800, total_tokens=2120
    )


async def test_messages_usage_joins_message_start_and_message_delta(client: httpx.AsyncClient) -> None:
    usage = {"input": 1200, "output": 80, "cache_read": 800, "cache_write": 300}
    async with ScriptedServer([{"text": "ok", "usage": usage}]) as server:
        events = await collect(model_for("messages", server, client))
    finish = finish_of(events)
    assert finish.usage == Usage(input_tokens=1200, output_tokens=80, cache_read_tokens=800, cache_write_tokens=300)
    assert finish.usage.total == 2380


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("finish", ["length", "content-filter", "stop"])
async def test_finish_reasons_are_mapped_to_stratas_names(wire: Wire, finish: str, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "cut short", "finish": finish}]) as server:
        events = await collect(model_for(wire, server, client))
    assert finish_of(events).reason == finish


@pytest.mark.parametrize("wire", WIRES)
async def test_session_headers_and_credentials_are_sent(wire: Wire, client: httpx.AsyncClient) -> None:
    async with ScriptedServer([{"text": "ok"}]) as server:
        await collect(model_for(wire, server, client), user_request(session_id="ses_abc", headers={"x-extra": "1"}))
    headers = server.requests[0].headers
    assert headers["x-session-affinity"] == headers["x-session-id"] == "ses_abc"
    assert headers["x-extra"] == "1"
    assert headers["user-agent"].startswith("strata/")
    if wire == "chat":
        assert server.requests[0].path == "/v1/chat/completions"
        assert headers["authorization"] == "Bearer test-key"
    else:
        assert server.requests[0].path == "/v1/messages"
        assert headers["x-api-key"] == "test-key" and headers["anthropic-version"] == "2023-06-01"
