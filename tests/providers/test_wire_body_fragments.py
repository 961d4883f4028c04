"""Bodies joined from per-message JSON kept across steps are the bytes a whole-body `json.dumps` gives.

A turn's steps hand each wire the same message objects again (plus the newest answer), and the wire keeps
each one's JSON; these check, step after step, that the body sent is byte for byte what encoding the dict
gives, and the same as for fresh copies of every message (nothing cached leaks from one step into the next:
the cache breakpoints move on, an earlier message's kept text is unchanged).
"""

from __future__ import annotations

import copy
import gc
import json
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ModelCapabilities,
    ModelInfo,
    ModelMessage,
    ModelRequest,
    ReasoningContent,
    SystemModelMessage,
    TextContent,
    ToolCallContent,
    ToolDefinition,
    ToolModelMessage,
    ToolOutput,
    ToolResultContent,
    UserModelMessage,
)
from strata_providers.anthropic_messages import messages_request_body
from strata_providers.openai_chat import chat_request_body
from strata_providers.params import OPENROUTER_NPM
from strata_providers.wire_json import encode_body

PNG = FileContent("image/png", "data:image/png;base64,iVBORw0KGgo=", "shot.png")
TOOL = ToolDefinition("read", "Read a file — «quoted».", {"type": "object", "properties": {"n": {"type": "number"}}})
SIGNED = {"anthropic": {"signature": "c2ln"}}
COMPACT: dict[str, Any] = {"ensure_ascii": False, "separators": (",", ":")}

Build = Callable[[ModelInfo, ModelRequest], dict[str, Any]]
WIRES: dict[str, tuple[Build, ModelInfo]] = {
    "chat": (chat_request_body, ModelInfo("mock", "gpt-4o-mock")),
    "chat, Claude (cache marks)": (chat_request_body, ModelInfo("mock", "claude-sonnet-4-5")),
    "chat, interleaved reasoning": (
        chat_request_body,
        ModelInfo("mock", "m", capabilities=ModelCapabilities(interleaved="reasoning_content")),
    ),
    "openrouter, Claude": (chat_request_body, ModelInfo("openrouter", "anthropic/claude-x", npm=OPENROUTER_NPM)),
    "anthropic": (messages_request_body, ModelInfo("anthropic", "claude-sonnet-4-5", npm="@ai-sdk/anthropic")),
}


def step_messages(step: int) -> list[ModelMessage]:
    """What one step of a turn adds: the model's call (with reasoning and text), then its result."""
    call = ToolCallContent(f"call_{step}", "read", {"n": step, "path": 'ü/ñ\n"x"', "x": 1.5, "none": None})
    output = ToolOutput("content", f"result {step} ✓", (PNG,)) if step % 3 == 0 else ToolOutput("text", "1: ok\n" * 9)
    answer = AssistantModelMessage(
        (ReasoningContent(f"thinking {step}", SIGNED), TextContent(f"step {step} — see"), call)
    )
    return [answer, ToolModelMessage((ToolResultContent(f"call_{step}", "read", output),))]


def request(messages: list[ModelMessage]) -> ModelRequest:
    return ModelRequest(system=("sys one", "sys two"), messages=tuple(messages), tools=(TOOL,))


@pytest.mark.parametrize("wire", list(WIRES))
def test_every_steps_body_is_the_bytes_of_encoding_it_whole_and_of_a_fresh_conversion(wire: str) -> None:
    build, info = WIRES[wire]
    history: list[ModelMessage] = [
        SystemModelMessage("leading"),
        UserModelMessage((TextContent("hi «there»"), PNG)),
        UserModelMessage((TextContent("go"),)),
    ]
    for step in range(14):
        history += step_messages(step)
        body = build(info, request(history))
        sent = encode_body(body)
        assert sent == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        fresh = build(info, request(copy.deepcopy(history)))
        assert sent == json.dumps(fresh, ensure_ascii=False, separators=(",", ":")).encode()
        assert body == fresh


def test_a_kept_messages_entries_are_not_changed_by_the_breakpoint_that_passed_over_it() -> None:
    build, info = WIRES["anthropic"]
    history: list[ModelMessage] = [UserModelMessage((TextContent("hi"),)), *step_messages(0)]
    marked = build(info, request(history))["messages"]
    assert "cache_control" in marked[-1]["content"][-1]
    history += step_messages(1)
    later = build(info, request(history))["messages"]
    assert "cache_control" not in json.dumps(later[:-2])


@pytest.mark.parametrize("wire", list(WIRES))
def test_a_history_that_changed_before_its_end_is_sent_as_it_now_is(wire: str) -> None:
    build, info = WIRES[wire]
    history: list[ModelMessage] = [UserModelMessage((TextContent("hi"),))]
    for step in range(6):
        history += step_messages(step)
    build(info, request(history))
    history[3] = UserModelMessage((TextContent("edited"),))
    history += step_messages(6)
    assert_sent_as_fresh(build, info, history)
    del history[5]
    history += step_messages(7)
    assert_sent_as_fresh(build, info, history)
    assert_sent_as_fresh(build, info, history[2:])  # another run's start: every kept message is read again


def assert_sent_as_fresh(build: Build, info: ModelInfo, history: list[ModelMessage]) -> None:
    sent = encode_body(build(info, request(history)))
    assert sent == json.dumps(build(info, request(copy.deepcopy(history))), **COMPACT).encode()


@pytest.mark.parametrize("wire", list(WIRES))
def test_what_is_kept_for_a_history_goes_with_its_messages(wire: str) -> None:
    build, info = WIRES[wire]
    history: list[ModelMessage] = [UserModelMessage((TextContent("hi"),))]
    for step in range(3):
        history += step_messages(step)
        encode_body(build(info, request(history)))
    watched = [weakref.ref(message) for message in history]
    del history
    gc.collect()
    assert [ref() for ref in watched] == [None] * len(watched)
