"""The Messages request body, field by field, from plain values (no HTTP)."""

from __future__ import annotations

from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ModelInfo,
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

INFO = ModelInfo("mock", "claude-sonnet-mock", npm="@ai-sdk/anthropic")
EPHEMERAL = {"type": "ephemeral"}
TOOL = ToolDefinition("read", "Read a file.", {"type": "object"})
PNG = FileContent("image/png", "data:image/png;base64,iVBORw0KGgo=", "shot.png")


def body(*messages: object, system: tuple[str, ...] = ("sys",), **request: object) -> dict:  # type: ignore[type-arg]
    return messages_request_body(INFO, ModelRequest(system=system, messages=tuple(messages), **request))  # type: ignore[arg-type]


def user(*parts: TextContent | FileContent) -> UserModelMessage:
    return UserModelMessage(tuple(parts))


def test_a_plain_call_has_opencodes_fields_in_opencodes_order() -> None:
    result = body(user(TextContent("hi")), tools=(TOOL,))
    assert list(result) == ["model", "max_tokens", "system", "messages", "tools", "tool_choice", "stream"]
    assert result["system"] == [{"type": "text", "text": "sys", "cache_control": EPHEMERAL}]
    assert result["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": EPHEMERAL}]}
    ]
    assert result["tools"] == [{"name": "read", "description": "Read a file.", "input_schema": {"type": "object"},
                                "eager_input_streaming": True}]  # fmt: skip
    assert result["tool_choice"] == {"type": "auto"}


def test_tool_choice_required_is_any_and_none_sends_no_tools() -> None:
    assert body(user(TextContent("hi")), tools=(TOOL,), tool_choice="required")["tool_choice"] == {"type": "any"}
    assert "tools" not in body(user(TextContent("hi")), tools=(TOOL,), tool_choice="none")


def test_only_the_first_two_system_blocks_are_cache_breakpoints() -> None:
    system = body(user(TextContent("hi")), system=("a", "b", "c"))["system"]
    assert [block.get("cache_control") for block in system] == [EPHEMERAL, EPHEMERAL, None]


def test_consecutive_user_messages_merge_keeping_each_ones_breakpoint() -> None:
    # The title request's shape: two user messages, both among the last two, become one message.
    result = body(user(TextContent("Generate a title:\n")), user(TextContent("fix the bug")))
    assert result["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "Generate a title:\n", "cache_control": EPHEMERAL},
        {"type": "text", "text": "fix the bug", "cache_control": EPHEMERAL},
    ]}]  # fmt: skip


def test_tool_results_follow_the_tool_use_in_a_user_message() -> None:
    conversation = (
        user(TextContent("read it")),
        AssistantModelMessage((ToolCallContent("call:1/x", "read", {"filePath": "a"}),)),
        ToolModelMessage((
            ToolResultContent("call:1/x", "read", ToolOutput("text", "body")),
            ToolResultContent("c2", "bash", ToolOutput("error", "exit 1")),
        )),
        user(TextContent("and now?")),
    )  # fmt: skip
    messages = body(*conversation)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [{"type": "tool_use", "id": "call_1_x", "name": "read",
                                       "input": {"filePath": "a"}}]  # fmt: skip
    results = messages[2]["content"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "call_1_x", "content": "body"}
    assert results[1] == {"type": "tool_result", "tool_use_id": "c2", "content": "exit 1", "is_error": True,
                          "cache_control": EPHEMERAL}  # fmt: skip
    assert results[2] == {"type": "text", "text": "and now?", "cache_control": EPHEMERAL}


def test_media_in_tool_results_and_user_messages_become_image_blocks() -> None:
    linked = FileContent("image/jpeg", "https://example.com/cat.jpg")
    result = body(
        user(TextContent("see"), linked),
        AssistantModelMessage((ToolCallContent("c", "read", {}),)),
        ToolModelMessage((ToolResultContent("c", "read", ToolOutput("content", "Image read", media=(PNG,))),)),
    )
    assert result["messages"][0]["content"][1] == {"type": "image", "source": {"type": "url", "url": linked.data}}
    (tool_result,) = result["messages"][2]["content"]
    assert tool_result["content"] == [
        {"type": "text", "text": "Image read"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
    ]


def test_signed_thinking_is_replayed_and_unsigned_reasoning_is_not() -> None:
    assistant = AssistantModelMessage((
        ReasoningContent("signed", provider_metadata={"anthropic": {"signature": "sig"}}),
        ReasoningContent("", provider_metadata={"anthropic": {"redactedData": "opaque"}}),
        ReasoningContent("from another model"),
        TextContent("answer"),
    ))  # fmt: skip
    content = body(user(TextContent("q")), assistant, user(TextContent("next")))["messages"][1]["content"]
    assert content[0] == {"type": "thinking", "thinking": "signed", "signature": "sig"}
    assert content[1] == {"type": "redacted_thinking", "data": "opaque"}
    assert [block["type"] for block in content] == ["thinking", "redacted_thinking", "text"]


def test_empty_text_and_empty_messages_are_left_out() -> None:
    messages = body(user(TextContent("q")), AssistantModelMessage((TextContent(""),)), user(TextContent("")))[
        "messages"
    ]
    assert messages == [{"role": "user", "content": [{"type": "text", "text": "q", "cache_control": EPHEMERAL}]}]


def test_a_system_message_in_the_history_is_said_by_the_user() -> None:
    result = body(SystemModelMessage("leading"), user(TextContent("q")), SystemModelMessage("later"))
    assert [b["text"] for b in result["system"]] == ["sys", "leading"]
    assert result["messages"][0]["content"][-1]["text"] == "later"


def test_thinking_turns_off_sampling_settings() -> None:
    thinking = {"thinking": {"type": "enabled", "budget_tokens": 4000}}
    result = body(user(TextContent("q")), temperature=0.7, top_p=0.9, provider_options=thinking)
    assert "temperature" not in result and "top_p" not in result
    assert result["thinking"] == {"type": "enabled", "budget_tokens": 4000}


def test_temperature_wins_over_top_p_and_top_p_alone_is_sent() -> None:
    both = body(user(TextContent("q")), temperature=0.7, top_p=0.9)
    assert both["temperature"] == 0.7 and "top_p" not in both
    assert body(user(TextContent("q")), top_p=0.9)["top_p"] == 0.9
