"""The chat-completions request body, field by field, from plain values (no HTTP)."""

from __future__ import annotations

from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ModelInfo,
    ModelLimits,
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
from strata_providers.openai_chat import chat_request_body

INFO = ModelInfo("mock", "gpt-4o-mock")
PNG = FileContent("image/png", "data:image/png;base64,iVBORw0KGgo=", "shot.png")
TOOL = ToolDefinition("read", "Read a file.", {"type": "object", "properties": {"filePath": {"type": "string"}}})


def body(*messages: object, info: ModelInfo = INFO, **request: object) -> dict:  # type: ignore[type-arg]
    return chat_request_body(info, ModelRequest(system=("sys",), messages=tuple(messages), **request))  # type: ignore[arg-type]


def user(*parts: TextContent | FileContent) -> UserModelMessage:
    return UserModelMessage(tuple(parts))


def test_a_plain_call_has_opencodes_fields_in_opencodes_order() -> None:
    result = body(user(TextContent("hi")), tools=(TOOL,))
    assert list(result) == ["model", "max_tokens", "messages", "tools", "tool_choice", "stream", "stream_options"]
    assert result["model"] == "gpt-4o-mock" and result["max_tokens"] == 32000
    assert result["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
    assert result["tools"] == [{"type": "function", "function": {
        "name": "read", "description": "Read a file.", "parameters": TOOL.parameters}}]  # fmt: skip
    assert result["tool_choice"] == "auto"
    assert result["stream"] is True and result["stream_options"] == {"include_usage": True}


def test_the_api_model_id_and_the_models_output_limit_are_used() -> None:
    info = ModelInfo("mock", "alias", api_id="vendor/real-name", limits=ModelLimits(output=8192))
    result = body(user(TextContent("hi")), info=info)
    assert result["model"] == "vendor/real-name" and result["max_tokens"] == 8192
    assert body(user(TextContent("hi")), max_output_tokens=1000)["max_tokens"] == 1000


def test_sampling_settings_appear_only_when_set() -> None:
    assert "temperature" not in body(user(TextContent("hi"))) and "top_p" not in body(user(TextContent("hi")))
    result = body(user(TextContent("hi")), temperature=0.5, top_p=0.9)
    assert (result["temperature"], result["top_p"]) == (0.5, 0.9)
    assert list(result).index("temperature") < list(result).index("messages")


def test_no_tools_means_no_tools_and_no_tool_choice() -> None:
    assert "tools" not in body(user(TextContent("hi"))) and "tool_choice" not in body(user(TextContent("hi")))
    assert "tools" not in body(user(TextContent("hi")), tools=(TOOL,), tool_choice="none")
    assert body(user(TextContent("hi")), tools=(TOOL,), tool_choice="required")["tool_choice"] == "required"


def test_provider_options_become_body_fields_but_cannot_replace_the_conversation() -> None:
    options = {"reasoning_effort": "low", "store": False, "messages": [], "stream": False}
    result = body(user(TextContent("hi")), provider_options=options)
    assert result["reasoning_effort"] == "low" and result["store"] is False
    assert result["stream"] is True and len(result["messages"]) == 2


def test_user_media_becomes_content_parts() -> None:
    pdf = FileContent("application/pdf", "data:application/pdf;base64,JVBERi0=", "spec.pdf")
    zip_ = FileContent("application/zip", "data:application/zip;base64,UEs=", "code.zip")
    (message,) = body(user(TextContent("look"), PNG, pdf, zip_))["messages"][1:]
    assert message["content"] == [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": PNG.data}},
        {"type": "file", "file": {"filename": "spec.pdf", "file_data": pdf.data}},
        {"type": "text", "text": "[Attached application/zip: code.zip]"},
    ]


def test_an_assistant_turn_carries_its_text_reasoning_and_tool_calls() -> None:
    assistant = AssistantModelMessage((
        ReasoningContent("Let me check."),
        TextContent("Checking."),
        ToolCallContent("call_1", "read", {"filePath": "/a b/ü.txt", "limit": 10}),
        ToolCallContent("srv_1", "web_search", {"q": "x"}, provider_executed=True),
    ))  # fmt: skip
    (message,) = body(assistant)["messages"][1:]
    assert message == {
        "role": "assistant",
        "content": "Checking.",
        "reasoning_content": "Let me check.",
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "read", "arguments": '{"filePath":"/a b/ü.txt","limit":10}'}}],
    }  # fmt: skip


def test_an_assistant_turn_of_only_tool_calls_has_empty_content() -> None:
    (message,) = body(AssistantModelMessage((ToolCallContent("c", "glob", {}),)))["messages"][1:]
    assert message["content"] == "" and message["tool_calls"][0]["function"]["arguments"] == "{}"
    assert "reasoning_content" not in message


def test_each_tool_result_is_its_own_tool_message() -> None:
    results = ToolModelMessage((
        ToolResultContent("c1", "read", ToolOutput("text", "file body")),
        ToolResultContent("c2", "bash", ToolOutput("error", "exit 1")),
        ToolResultContent("c3", "read", ToolOutput("content", "an image", media=(PNG,))),
    ))  # fmt: skip
    messages = body(results)["messages"][1:]
    assert messages[0] == {"role": "tool", "tool_call_id": "c1", "content": "file body"}
    assert messages[1] == {"role": "tool", "tool_call_id": "c2", "content": "exit 1"}
    assert messages[2]["content"].startswith("an image\n\n[Media omitted")
    assert "shot.png" in messages[2]["content"]


def test_a_system_message_in_the_history_stays_a_system_message() -> None:
    messages = body(user(TextContent("a")), SystemModelMessage("note"))["messages"]
    assert messages[-1] == {"role": "system", "content": "note"}


def test_claude_models_get_cache_breakpoints_on_system_and_the_last_two_messages() -> None:
    info = ModelInfo("openrouter", "anthropic/claude-sonnet-4.5")
    conversation = (
        user(TextContent("first")),
        AssistantModelMessage((TextContent("ok"), ToolCallContent("c1", "read", {}))),
        ToolModelMessage((ToolResultContent("c1", "read", ToolOutput("text", "r1")),)),
    )
    messages = body(*conversation, info=info)["messages"]
    ephemeral = {"type": "ephemeral"}
    assert messages[0]["cache_control"] == ephemeral
    assert "cache_control" not in messages[1]
    assert messages[2]["tool_calls"][-1]["cache_control"] == ephemeral and "cache_control" not in messages[2]
    assert messages[3]["cache_control"] == ephemeral


def test_other_models_get_no_cache_breakpoints() -> None:
    messages = body(user(TextContent("a")), user(TextContent("b"), PNG))["messages"]
    assert "cache_control" not in str(messages)
