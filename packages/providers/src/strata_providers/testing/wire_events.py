"""A scripted turn as the bytes each wire would stream, and a scripted failure as each wire's error body.

The shapes follow the oracle's scripted_server.py (itself modelled on the real providers): chat-completion
chunks ending with a usage chunk and `data: [DONE]`; Messages events from `message_start` to `message_stop`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from strata_core.llm import FinishReason
from strata_core.testing import ScriptedToolCall, Turn, pieces

Wire = Literal["chat", "messages"]

_CHAT_FINISH: dict[FinishReason, str] = {
    "stop": "stop",
    "length": "length",
    "tool-calls": "tool_calls",
    "content-filter": "content_filter",
}
_MESSAGES_STOP: dict[FinishReason, str] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool-calls": "tool_use",
    "content-filter": "refusal",
}
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                429: "rate_limit_error", 529: "overloaded_error"}  # fmt: skip


def sse_events(turn: Turn, wire: Wire, number: int, model: str) -> list[bytes]:
    """Every SSE event of the turn's stream, in order, each a complete `...\\n\\n` frame."""
    events = list(_chat_events(turn, number, model) if wire == "chat" else _messages_events(turn, number, model))
    if turn.malformed is not None:
        events.insert(1, f"data: {turn.malformed}\n\n".encode())
    if turn.cut_after is not None:
        return events[: turn.cut_after]
    return events


def error_body(turn: Turn, wire: Wire) -> dict[str, Any]:
    """The JSON body of a scripted error response, as the provider behind `wire` writes one."""
    status = turn.status or 500
    kind = _ERROR_TYPES.get(status, "api_error")
    message = turn.message or f"scripted error {status}"
    if wire == "messages":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": turn.code or str(status)}}


def error_headers(turn: Turn) -> list[tuple[str, str]]:
    headers = []
    if turn.retry_after is not None:
        headers.append(("retry-after", _number(turn.retry_after)))
    if turn.retry_after_ms is not None:
        headers.append(("retry-after-ms", str(turn.retry_after_ms)))
    return headers


def tool_call_id(call: ScriptedToolCall, wire: Wire, number: int, k: int) -> str:
    return call.id or (f"call_{number}_{k}" if wire == "chat" else f"toolu_{number}_{k}")


def arguments_text(call: ScriptedToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments)


def _chat_events(turn: Turn, number: int, model: str) -> Iterator[bytes]:
    base = {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 1_767_225_600, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _data({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    for piece in pieces(turn.reasoning, turn.chunk_size):
        yield chunk({"reasoning_content": piece})
    for piece in pieces(turn.text, turn.chunk_size):
        yield chunk({"content": piece})
    for k, call in enumerate(turn.tool_calls):
        args = pieces(arguments_text(call), turn.chunk_size) or [""]
        head = {"index": k, "id": tool_call_id(call, "chat", number, k), "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": call.name, "arguments": args[0]}}]})
        for piece in args[1:]:
            yield chunk({"tool_calls": [{"index": k, "function": {"arguments": piece}}]})
    if turn.stream_error is not None:
        yield _data({"error": {"message": turn.message or "scripted stream error", **turn.stream_error}})
        return
    if turn.hang:
        return
    yield chunk({}, _CHAT_FINISH.get(turn.finish_reason, "stop"))
    yield _data({**base, "choices": [], "usage": _chat_usage(turn)})
    yield b"data: [DONE]\n\n"


def _chat_usage(turn: Turn) -> dict[str, Any]:
    usage = turn.usage
    prompt = usage.input + usage.cache_read
    completion = usage.output + usage.reasoning
    reported: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning},
    }
    if usage.cost is not None:  # as OpenRouter reports what a call cost
        reported["cost"] = usage.cost
    return reported


def _messages_events(turn: Turn, number: int, model: str) -> Iterator[bytes]:
    usage = turn.usage
    start_usage = {
        "input_tokens": usage.input,
        "output_tokens": 1,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation_input_tokens": usage.cache_write,
    }
    message: dict[str, Any] = {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    yield _event("message_start", {"type": "message_start", "message": message})
    for index, (start, deltas) in enumerate(_blocks(turn, number)):
        yield _event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        for delta in deltas:
            yield _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    if turn.stream_error is not None:
        error = {"type": "api_error", "message": turn.message or "scripted stream error", **turn.stream_error}
        yield _event("error", {"type": "error", "error": error})
        return
    if turn.hang:
        return
    stop = _MESSAGES_STOP.get(turn.finish_reason, "end_turn")
    yield _event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": usage.output}})  # fmt: skip
    yield _event("message_stop", {"type": "message_stop"})


def _blocks(turn: Turn, number: int) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    if turn.reasoning:
        thinking = [{"type": "thinking_delta", "thinking": p} for p in pieces(turn.reasoning, turn.chunk_size)]
        yield (
            {"type": "thinking", "thinking": ""},
            [*thinking, {"type": "signature_delta", "signature": f"sig_{number}"}],
        )
    if turn.text:
        yield (
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in pieces(turn.text, turn.chunk_size)],
        )
    for k, call in enumerate(turn.tool_calls):
        start = {"type": "tool_use", "id": tool_call_id(call, "messages", number, k), "name": call.name, "input": {}}
        args = pieces(arguments_text(call), turn.chunk_size)
        yield start, [{"type": "input_json_delta", "partial_json": p} for p in args]


def _data(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def _event(name: str, payload: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
