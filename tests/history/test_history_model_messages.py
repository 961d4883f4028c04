"""`to_model_messages`: every rule of reference section 6.3, with plain values."""

from __future__ import annotations

from history_records import (
    MODEL,
    assistant,
    compaction,
    completed,
    failed,
    file,
    model,
    reasoning,
    running,
    step_start,
    subtask,
    text,
    tool,
    user,
)

from strata_core import llm
from strata_core import message as m
from strata_core.history import to_model_messages
from strata_core.llm import (
    AssistantModelMessage,
    FileContent,
    ReasoningContent,
    TextContent,
    ToolCallContent,
    ToolModelMessage,
    ToolOutput,
    ToolResultContent,
    UserModelMessage,
)
from strata_core.secret_outputs import ClearOutput, SecretOutputs, secret_placeholder

PNG = "data:image/png;base64,Zm9v"
PDF = "data:application/pdf;base64,JVBERi0xLjQK"


def asked(question: str = "run tool") -> UserModelMessage:
    return UserModelMessage(content=(TextContent(question),))


def call(call_id: str = "call_1", name: str = "bash", args: dict[str, object] | None = None) -> ToolCallContent:
    return ToolCallContent(call_id=call_id, tool_name=name, input=args if args is not None else {"command": "ls"})


def result(output: ToolOutput, call_id: str = "call_1", name: str = "bash") -> ToolModelMessage:
    return ToolModelMessage(content=(ToolResultContent(call_id, name, output),))


# User messages


def test_messages_without_parts_are_skipped() -> None:
    history = [user("msg_1"), user("msg_2", text("hello"))]
    assert to_model_messages(history, MODEL) == [asked("hello")]


def test_a_user_message_with_only_ignored_text_is_dropped() -> None:
    assert to_model_messages([user("msg_1", text("ignored", ignored=True))], MODEL) == []


def test_empty_user_text_is_dropped_and_the_rest_kept() -> None:
    assert to_model_messages([user("msg_1", text(""))], MODEL) == []
    assert to_model_messages([user("msg_1", text(""), text("hello"))], MODEL) == [asked("hello")]


def test_synthetic_text_is_included() -> None:
    history = [user("msg_1", text("from a file", synthetic=True)), assistant("msg_2", text("ok", synthetic=True))]
    assert to_model_messages(history, MODEL) == [
        asked("from a file"),
        AssistantModelMessage(content=(TextContent("ok"),)),
    ]


def test_user_files_compaction_and_subtask_parts_become_content() -> None:
    history = [
        user(
            "msg_1",
            text("hello"),
            text("ignored", ignored=True),
            file("image/png", "https://example.com/img.png", "img.png"),
            file("text/plain", "file:///note.txt", "note.txt"),
            file("application/x-directory", "file:///dir", "dir"),
            compaction(),
            subtask(),
        )
    ]
    assert to_model_messages(history, MODEL) == [
        UserModelMessage(
            content=(
                TextContent("hello"),
                FileContent(media_type="image/png", data="https://example.com/img.png", filename="img.png"),
                TextContent("What did we do so far?"),
                TextContent("The following tool was executed by the user"),
            )
        )
    ]


def test_strip_media_replaces_images_and_pdfs_with_a_placeholder_only() -> None:
    history = [
        user(
            "msg_1",
            file("image/png", PNG, "shot.png"),
            file("application/pdf", PDF),
            file("application/json", "file:///data.json", "data.json"),
        )
    ]
    assert to_model_messages(history, MODEL, strip_media=True) == [
        UserModelMessage(
            content=(
                TextContent("[Attached image/png: shot.png]"),
                TextContent("[Attached application/pdf: file]"),
                FileContent(media_type="application/json", data="file:///data.json", filename="data.json"),
            )
        )
    ]


# Tool calls and results


def test_a_completed_tool_becomes_a_call_and_a_result_with_media() -> None:
    png = file("image/png", PNG, "attachment.png")
    history = [
        user("msg_1", text("run tool")),
        assistant(
            "msg_2",
            text("done", metadata={"openai": {"assistant": "meta"}}),
            tool(completed("ok", attachments=[png]), metadata={"openai": {"tool": "meta"}}),
        ),
    ]
    assert to_model_messages(history, model("@ai-sdk/openai")) == [
        asked(),
        AssistantModelMessage(
            content=(
                TextContent("done", {"openai": {"assistant": "meta"}}),
                ToolCallContent("call_1", "bash", {"command": "ls"}, provider_metadata={"openai": {"tool": "meta"}}),
            )
        ),
        result(ToolOutput("content", "ok", (FileContent("image/png", PNG, "attachment.png"),))),
    ]


def _tool_with(attachment: m.FilePart) -> list[m.MessageWithParts]:
    return [
        user("msg_1", text("run tool")),
        assistant("msg_2", tool(completed("read it", attachments=[attachment]), name="read")),
    ]


def test_anthropic_keeps_a_jpeg_inside_the_tool_result() -> None:
    jpeg = file("image/jpeg", "data:image/jpeg;base64,/9j/4AAQ", "demo.png")
    messages = to_model_messages(_tool_with(jpeg), model("@ai-sdk/anthropic"))
    assert messages[-1] == result(
        ToolOutput("content", "read it", (FileContent("image/jpeg", jpeg.url, "demo.png"),)), name="read"
    )


def test_a_bedrock_pdf_moves_into_a_user_message_after_the_reply() -> None:
    pdf = file("application/pdf", PDF, "example.pdf")
    assert to_model_messages(_tool_with(pdf), model("@ai-sdk/amazon-bedrock")) == [
        asked(),
        AssistantModelMessage(content=(call(name="read"),)),
        result(ToolOutput("text", "read it"), name="read"),
        UserModelMessage(
            content=(
                TextContent("Attached media from tool result:"),
                FileContent("application/pdf", PDF, "example.pdf"),
            )
        ),
    ]


def test_bedrock_and_xai_keep_images_in_tool_results() -> None:
    for npm in ("@ai-sdk/amazon-bedrock", "@ai-sdk/xai"):
        messages = to_model_messages(_tool_with(file("image/png", PNG)), model(npm))
        assert messages[-1] == result(ToolOutput("content", "read it", (FileContent("image/png", PNG),)), name="read")


def test_openai_compatible_models_get_tool_images_as_a_user_message() -> None:
    messages = to_model_messages(_tool_with(file("image/png", PNG)), MODEL)
    assert messages[-2] == result(ToolOutput("text", "read it"), name="read")
    assert messages[-1] == UserModelMessage(
        content=(TextContent("Attached media from tool result:"), FileContent("image/png", PNG))
    )


def test_google_keeps_tool_media_only_for_gemini_3() -> None:
    attachment = file("image/png", PNG)
    kept = to_model_messages(_tool_with(attachment), model("@ai-sdk/google", api_id="gemini-3-pro-preview"))
    moved = to_model_messages(_tool_with(attachment), model("@ai-sdk/google", api_id="gemini-2.5-flash"))
    assert kept[-1].role == "tool"
    assert moved[-1].role == "user"


def test_a_declared_capability_widens_what_stays_in_tool_results() -> None:
    messages = to_model_messages(_tool_with(file("image/png", PNG)), model("@ai-sdk/openai-compatible", media="images"))
    assert messages[-1] == result(ToolOutput("content", "read it", (FileContent("image/png", PNG),)), name="read")


def test_media_moved_from_several_steps_follows_the_whole_reply() -> None:
    history = [
        user("msg_1", text("look")),
        assistant(
            "msg_2",
            step_start(),
            tool(completed("one", attachments=[file("image/png", PNG)]), call_id="c1", name="read"),
            step_start(),
            tool(
                completed("two", attachments=[file("image/gif", "data:image/gif;base64,R0")]), call_id="c2", name="read"
            ),
        ),
    ]
    roles = [message.role for message in to_model_messages(history, MODEL)]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "user"]


def test_provider_metadata_is_dropped_when_the_message_came_from_another_model() -> None:
    history = [
        user("msg_1", text("run tool")),
        assistant(
            "msg_2",
            text("done", metadata={"openai": {"assistant": "meta"}}),
            reasoning("thinking", metadata={"openai": {"reasoning": "meta"}}),
            reasoning("   "),
            tool(completed("ok"), metadata={"openai": {"tool": "meta"}}),
            model_ref=("other", "other-model"),
        ),
    ]
    assert to_model_messages(history, MODEL) == [
        asked(),
        AssistantModelMessage(content=(TextContent("done"), TextContent("thinking"), call())),
        result(ToolOutput("text", "ok")),
    ]


def test_reasoning_from_the_same_model_is_replayed_with_its_metadata() -> None:
    history = [assistant("msg_2", reasoning("hmm", {"anthropic": {"signature": "sig"}}), text("answer"))]
    assert to_model_messages(history, MODEL) == [
        AssistantModelMessage(
            content=(ReasoningContent("hmm", {"anthropic": {"signature": "sig"}}), TextContent("answer"))
        )
    ]


def test_compacted_tool_output_is_replaced_and_its_attachments_dropped() -> None:
    history = [
        user("msg_1", text("run tool")),
        assistant("msg_2", tool(completed("secret", attachments=[file("image/png", PNG)], compacted=1))),
    ]
    assert to_model_messages(history, model("@ai-sdk/anthropic"))[-1] == result(
        ToolOutput("text", "[Old tool result content cleared]")
    )


def test_tool_output_is_truncated_to_the_requested_length() -> None:
    history = [user("msg_1", text("run tool")), assistant("msg_2", tool(completed("abcdefghij")))]
    assert to_model_messages(history, MODEL, tool_output_max_chars=4)[-1] == result(
        ToolOutput("text", "abcd\n[Tool output truncated for compaction: omitted 6 chars]")
    )
    assert to_model_messages(history, MODEL, tool_output_max_chars=10)[-1] == result(ToolOutput("text", "abcdefghij"))


def test_strip_media_drops_tool_attachments() -> None:
    messages = to_model_messages(_tool_with(file("image/png", PNG)), model("@ai-sdk/anthropic"), strip_media=True)
    assert messages[-1] == result(ToolOutput("text", "read it"), name="read")


def test_a_tool_error_becomes_an_error_result() -> None:
    history = [user("msg_1", text("run tool")), assistant("msg_2", tool(failed("nope", {})))]
    assert to_model_messages(history, MODEL)[1:] == [
        AssistantModelMessage(content=(call(),)),
        result(ToolOutput("error", "nope")),
    ]


def test_an_aborted_command_forwards_its_partial_output() -> None:
    output = "31403\n12179\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>"
    history = [
        user("msg_1", text("run tool")),
        assistant("msg_2", tool(failed("Tool execution aborted", {"interrupted": True, "output": output}))),
    ]
    assert to_model_messages(history, MODEL)[-1] == result(ToolOutput("text", output))


def test_pending_and_running_tools_get_an_interrupted_error_result() -> None:
    pending = tool(m.ToolStatePending(input={"command": "ls"}), call_id="call_pending")
    history = [
        user("msg_1", text("run tool")),
        assistant("msg_2", pending, tool(running(), name="read", call_id="call_running")),
    ]
    interrupted = ToolOutput("error", "[Tool execution was interrupted]")
    assert to_model_messages(history, MODEL)[1:] == [
        AssistantModelMessage(content=(call("call_pending"), call("call_running", "read", {"path": "/tmp"}))),
        ToolModelMessage(
            content=(
                ToolResultContent("call_pending", "bash", interrupted),
                ToolResultContent("call_running", "read", interrupted),
            )
        ),
    ]


def test_provider_executed_calls_keep_the_flag_but_not_in_their_metadata() -> None:
    history = [assistant("msg_2", tool(completed("found"), name="web_search", metadata={"providerExecuted": True}))]
    messages = to_model_messages(history, MODEL)
    assert messages == [
        AssistantModelMessage(
            content=(ToolCallContent("call_1", "web_search", {"command": "ls"}, provider_executed=True),)
        ),
        ToolModelMessage(content=(ToolResultContent("call_1", "web_search", ToolOutput("text", "found"), True),)),
    ]


# Assistant messages


def test_assistant_messages_with_an_error_are_skipped() -> None:
    error = m.MessageError(name="APIError", message="boom")
    assert to_model_messages([assistant("msg_2", text("should not render"), error=error)], MODEL) == []


def test_aborted_assistant_messages_are_kept_only_with_real_content() -> None:
    aborted = m.MessageError(name="MessageAbortedError", message="aborted")
    history = [
        assistant("msg_2", reasoning("thinking"), text("partial answer"), error=aborted),
        assistant("msg_3", step_start(), reasoning("thinking"), error=aborted),
    ]
    assert to_model_messages(history, MODEL) == [
        AssistantModelMessage(content=(ReasoningContent("thinking"), TextContent("partial answer")))
    ]


def test_assistant_messages_split_at_step_starts() -> None:
    history = [assistant("msg_2", text("first"), step_start(), text("second"))]
    assert to_model_messages(history, MODEL) == [
        AssistantModelMessage(content=(TextContent("first"),)),
        AssistantModelMessage(content=(TextContent("second"),)),
    ]


def test_each_step_is_followed_by_the_results_of_its_own_tools() -> None:
    history = [
        assistant(
            "msg_2",
            step_start(),
            text("let me look"),
            tool(completed("a"), call_id="c1"),
            step_start(),
            tool(completed("b"), call_id="c2"),
            step_start(),
            text("done"),
        )
    ]
    assert to_model_messages(history, MODEL) == [
        AssistantModelMessage(content=(TextContent("let me look"), call("c1"))),
        result(ToolOutput("text", "a"), "c1"),
        AssistantModelMessage(content=(call("c2"),)),
        result(ToolOutput("text", "b"), "c2"),
        AssistantModelMessage(content=(TextContent("done"),)),
    ]


def test_a_message_of_only_step_starts_is_dropped() -> None:
    assert to_model_messages([assistant("msg_2", step_start(), step_start())], MODEL) == []


def test_empty_text_between_anthropic_signed_reasoning_becomes_a_space() -> None:
    history = [
        assistant(
            "msg_2",
            step_start(),
            reasoning("thinking-one", {"anthropic": {"signature": "sig1"}}),
            text(""),
            step_start(),
            reasoning("thinking-two", {"anthropic": {"signature": "sig2"}}),
            text("the answer"),
        )
    ]
    first, second = to_model_messages(history, MODEL)
    assert isinstance(first, llm.AssistantModelMessage) and isinstance(second, llm.AssistantModelMessage)
    assert first.content[1] == TextContent(" ")
    assert second.content[1] == TextContent("the answer")


def test_empty_text_is_left_alone_without_an_anthropic_signature() -> None:
    for metadata in ({"bedrock": {"signature": "sig"}}, None):
        history = [assistant("msg_2", reasoning("thinking", metadata), text(""), text("answer"))]
        (message,) = to_model_messages(history, MODEL)
        assert isinstance(message, llm.AssistantModelMessage)
        assert [c.text for c in message.content if isinstance(c, TextContent)] == ["", "answer"]


def test_conversion_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    from strata_core.history import to_model_messages
    from strata_core.llm import ModelInfo

    model = ModelInfo(provider_id="p", id="m")
    assert gc.isenabled()
    to_model_messages([], model)
    assert gc.isenabled()
    gc.disable()
    try:
        to_model_messages([], model)
        assert not gc.isenabled()
    finally:
        gc.enable()


# Secret outputs


def test_a_secret_output_held_in_memory_replaces_its_placeholder_until_cleared_replaced_or_dropped() -> None:
    placeholder = secret_placeholder([".env"])
    shown, pruned, old = (tool(completed(placeholder, compacted=c), name="read") for c in (None, 5, None))
    replaced = tool(completed("a client's own text"), name="read")
    secrets = SecretOutputs(max_kept=3)
    for part in (old, shown, pruned, replaced):  # four kept, three held: the oldest is dropped
        secrets.keep(part, ClearOutput("API_TOKEN=tok-1", placeholder))
    history = [user("msg_1", text("run tool")), assistant("msg_2", shown, pruned, old, replaced)]

    def outputs(held: SecretOutputs | None) -> list[str]:
        (_, _, results) = to_model_messages(history, MODEL, secrets=held)
        assert isinstance(results, ToolModelMessage)
        return [item.output.text for item in results.content]

    cleared = "[Old tool result content cleared]"
    assert outputs(secrets) == ["API_TOKEN=tok-1", cleared, placeholder, "a client's own text"]
    assert outputs(None) == [placeholder, cleared, placeholder, "a client's own text"]
