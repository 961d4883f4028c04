"""Stored history as the messages a model request carries: OpenCode's `toModelMessages` (reference 6.3).

Pure and linear in the size of the history. Strings the model sees here are interface strings from the
reference (section 6), reproduced exactly. A secret file's output is stored as a placeholder; given the
process's `SecretOutputs`, the clear output it holds is sent instead (see `strata_core.secret_outputs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from attrs import evolve, frozen

from strata_core import llm
from strata_core import message as m
from strata_core.secret_outputs import SecretOutputs

COMPACTION_PROMPT = "What did we do so far?"
SUBTASK_PROMPT = "The following tool was executed by the user"
CLEARED_TOOL_OUTPUT = "[Old tool result content cleared]"
INTERRUPTED_TOOL_OUTPUT = "[Tool execution was interrupted]"
TOOL_MEDIA_PROMPT = "Attached media from tool result:"
TRUNCATION_NOTE = "\n[Tool output truncated for compaction: omitted {omitted} chars]"

# Files the prompt step already expanded into synthetic text parts; sending them again would double them.
_EXPANDED_FILE_MIMES = frozenset({"text/plain", "application/x-directory"})


def is_media(mime: str) -> bool:
    """Images and PDFs: what models take as attachments rather than text."""
    return mime.startswith("image/") or mime == "application/pdf"


@frozen
class _Options:
    model_ref: str
    strip_media: bool
    tool_output_max_chars: int | None
    media_in_tool_results: llm.MediaInToolResults
    secrets: SecretOutputs | None


def to_model_messages(
    messages: Iterable[m.MessageWithParts],
    model: llm.ModelInfo,
    *,
    strip_media: bool = False,
    tool_output_max_chars: int | None = None,
    secrets: SecretOutputs | None = None,
) -> list[llm.ModelMessage]:
    """Stored history as the messages a request carries, for `model`.

    `strip_media` replaces images and PDFs with a one-line placeholder and drops tool attachments;
    `tool_output_max_chars` truncates tool outputs (compaction uses both to fit a summary request).
    `secrets` gives back the clear output of a secret file's read this process showed, where the store has
    a placeholder (a turn's requests pass it; a summary request, which is stored, does not).
    """
    options = _Options(model.ref, strip_media, tool_output_max_chars, media_in_tool_results(model), secrets)
    out: list[llm.ModelMessage] = []
    for message in messages:
        if not message.parts:
            continue
        info = message.info
        if isinstance(info, m.UserMessage):
            content = _user_content(message.parts, strip_media)
            if content:
                out.append(llm.UserModelMessage(content=tuple(content)))
        elif _replayable(info, message.parts):
            _append_assistant(out, info, message.parts, options)
    return out


def _user_content(parts: Sequence[m.Part], strip_media: bool) -> list[llm.UserContent]:
    content: list[llm.UserContent] = []
    for part in parts:
        if isinstance(part, m.TextPart):
            if not part.ignored and part.text:  # synthetic text is included
                content.append(llm.TextContent(part.text))
        elif isinstance(part, m.FilePart):
            if part.mime in _EXPANDED_FILE_MIMES:
                continue
            if strip_media and is_media(part.mime):
                name = part.filename if part.filename is not None else "file"
                content.append(llm.TextContent(f"[Attached {part.mime}: {name}]"))
            else:
                content.append(llm.FileContent(media_type=part.mime, data=part.url, filename=part.filename))
        elif isinstance(part, m.CompactionPart):
            content.append(llm.TextContent(COMPACTION_PROMPT))
        elif isinstance(part, m.SubtaskPart):
            content.append(llm.TextContent(SUBTASK_PROMPT))
    return content


def _replayable(info: m.AssistantMessage, parts: Sequence[m.Part]) -> bool:
    """Failed replies are not replayed, except an aborted one that got as far as real content."""
    if info.error is None:
        return True
    return info.error.name == m.ABORTED_ERROR and any(
        not isinstance(part, m.StepStartPart | m.ReasoningPart) for part in parts
    )


def _append_assistant(
    out: list[llm.ModelMessage], info: m.AssistantMessage, parts: Sequence[m.Part], options: _Options
) -> None:
    """Append one assistant message as it was sent: per model step, what the model said, then its tool results."""
    # Replaying another model's provider metadata (signatures, item ids) makes providers reject the request.
    same_model = f"{info.provider_id}/{info.model_id}" == options.model_ref
    signed: bool | None = None  # worked out on the first empty text, the only place it matters
    content: list[llm.AssistantContent] = []
    results: list[llm.ToolResultContent] = []
    moved_media: list[llm.FileContent] = []
    first = len(out)
    for part in parts:
        if isinstance(part, m.StepStartPart):
            if content:
                _append_step(out, content, results)
                content, results = [], []
        elif isinstance(part, m.TextPart):
            text = part.text
            if text == "":
                signed = _has_signed_reasoning(parts) if signed is None else signed
                # An empty text between Anthropic-signed thinking blocks is a separator the API needs,
                # and it rejects empty text: a single space keeps the blocks where they were.
                text = " " if signed else text
            content.append(llm.TextContent(text, part.metadata if same_model else None))
        elif isinstance(part, m.ReasoningPart):
            if same_model:
                content.append(llm.ReasoningContent(part.text, part.metadata))
            elif part.text.strip():
                content.append(llm.TextContent(part.text))
        elif isinstance(part, m.ToolPart):
            call, result = _tool_exchange(part, same_model, options, moved_media)
            content.append(call)
            results.append(result)
    if content:
        _append_step(out, content, results)
    if moved_media and len(out) > first:
        out.append(llm.UserModelMessage(content=(llm.TextContent(TOOL_MEDIA_PROMPT), *moved_media)))


def _append_step(
    out: list[llm.ModelMessage], content: list[llm.AssistantContent], results: list[llm.ToolResultContent]
) -> None:
    out.append(llm.AssistantModelMessage(content=tuple(content)))
    if results:
        out.append(llm.ToolModelMessage(content=tuple(results)))


def _has_signed_reasoning(parts: Sequence[m.Part]) -> bool:
    return any(isinstance(p, m.ReasoningPart) and _anthropic_signature(p.metadata) for p in parts)


def _anthropic_signature(metadata: dict[str, Any] | None) -> bool:
    anthropic = (metadata or {}).get("anthropic")
    return isinstance(anthropic, dict) and anthropic.get("signature") is not None


def _tool_exchange(
    part: m.ToolPart, same_model: bool, options: _Options, moved_media: list[llm.FileContent]
) -> tuple[llm.ToolCallContent, llm.ToolResultContent]:
    executed = part.provider_executed
    metadata = _call_metadata(part.metadata) if same_model else None
    call = llm.ToolCallContent(part.call_id, part.tool, part.state.input, executed, metadata)
    output = _tool_output(_restored(part, options.secrets), options, moved_media)
    # A provider-executed result (server-side web search...) travels with the others, flagged: the wire
    # puts it where its API wants it (the AI SDK puts it in the assistant content).
    return call, llm.ToolResultContent(part.call_id, part.tool, output, executed)


def _restored(part: m.ToolPart, secrets: SecretOutputs | None) -> m.ToolState:
    """The part's state with the clear output in place of its placeholder, when this process holds it."""
    state = part.state
    clear = secrets.clear_output(part) if secrets is not None else None
    if clear is None or not isinstance(state, m.ToolStateCompleted) or state.output != clear.placeholder:
        return state
    return evolve(state, output=clear.output, attachments=clear.attachments)


def _call_metadata(metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """Part metadata minus our own `providerExecuted` flag: what the provider attached to the call."""
    if not metadata:
        return None
    if "providerExecuted" not in metadata:
        return metadata
    return {k: v for k, v in metadata.items() if k != "providerExecuted"} or None


def _tool_output(state: m.ToolState, options: _Options, moved_media: list[llm.FileContent]) -> llm.ToolOutput:
    if isinstance(state, m.ToolStateCompleted):
        return _completed_output(state, options, moved_media)
    if isinstance(state, m.ToolStateError):
        partial = (state.metadata or {}).get("output")
        if (state.metadata or {}).get("interrupted") is True and isinstance(partial, str):
            return llm.ToolOutput("text", partial)  # what an aborted command printed before it stopped
        return llm.ToolOutput("error", state.error)
    # Pending or running: the run died before a result. Every call needs a result, or providers refuse.
    return llm.ToolOutput("error", INTERRUPTED_TOOL_OUTPUT)


def _completed_output(
    state: m.ToolStateCompleted, options: _Options, moved_media: list[llm.FileContent]
) -> llm.ToolOutput:
    compacted = bool(state.time.compacted)
    text = CLEARED_TOOL_OUTPUT if compacted else _truncate(state.output, options.tool_output_max_chars)
    if compacted or options.strip_media or not state.attachments:
        return llm.ToolOutput("text", text)
    media: list[llm.FileContent] = []
    for attachment in state.attachments:
        file = llm.FileContent(media_type=attachment.mime, data=attachment.url, filename=attachment.filename)
        if is_media(attachment.mime) and not _accepts_in_tool_results(options.media_in_tool_results, attachment.mime):
            moved_media.append(file)
        elif attachment.url.startswith("data:") and "," in attachment.url:
            media.append(file)
    if media:
        return llm.ToolOutput("content", text, tuple(media))
    return llm.ToolOutput("text", text)


def _truncate(text: str, max_chars: int | None) -> str:
    if not max_chars or len(text) <= max_chars:
        return text
    return text[:max_chars] + TRUNCATION_NOTE.format(omitted=len(text) - max_chars)


# Which media each SDK package accepts inside a tool result (reference 6.3). Anything else goes into a
# user message after the reply, where every multimodal model can see it.
_MEDIA_BY_NPM: dict[str, llm.MediaInToolResults] = {
    "@ai-sdk/anthropic": "all",
    "@ai-sdk/openai": "all",
    "@ai-sdk/google-vertex/anthropic": "all",
    "@ai-sdk/amazon-bedrock": "images",
    "@ai-sdk/xai": "images",
}
_MEDIA_RANK: dict[llm.MediaInToolResults, int] = {"none": 0, "images": 1, "all": 2}


def media_in_tool_results(model: llm.ModelInfo) -> llm.MediaInToolResults:
    """What `model` accepts inside tool results: OpenCode's per-package rule, widened by the model's capability."""
    by_npm = _MEDIA_BY_NPM.get(model.npm, "none")
    if model.npm == "@ai-sdk/google":
        api_id = model.api_model_id.lower()
        by_npm = "all" if "gemini-3" in api_id and "gemini-2" not in api_id else "none"
    declared = model.capabilities.media_in_tool_results
    return declared if _MEDIA_RANK[declared] > _MEDIA_RANK[by_npm] else by_npm


def _accepts_in_tool_results(level: llm.MediaInToolResults, mime: str) -> bool:
    return level == "all" or (level == "images" and mime.startswith("image/"))
