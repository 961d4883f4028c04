"""The model double: an in-process `LanguageModel` that plays a script of turns and records what it was asked.

    model = ScriptedModel([{"tool_calls": [{"name": "read", "arguments": {"filePath": "a.txt"}}]},
                           {"text": "The file says hello."}])
    ...  # run the loop with it (`open_runtime(..., models=ScriptedResolver(model))`)
    assert model.main_requests[1].messages[-1].role == "tool"

Each turn is played as the stream events a model reports (reasoning, text, tool calls, then a finish with the
turn's usage), with no wire code, so it needs nothing beyond strata-core. A failing turn ends the stream with
one `StreamFailed` carrying the `ModelError` a provider would have given (`status` 429 a `RateLimitedError`,
413 a `ContextOverflowError`, ...); this double does not retry. strata-providers' `ScriptedModel` plays the
same script through the real wire decoders and retries (and its `ScriptedServer` over loopback HTTP), for a
test about the bytes on the wire. Title requests are answered with `title_text` without consuming a turn. A
call after the last turn raises `ScriptExhaustedError` naming the turn and the request, so a test that makes
one call too many fails loudly; the model also remembers it, for `assert_script_consumed()`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypedDict, Unpack

import anyio

from strata_core import json_text
from strata_core.llm import (
    AuthenticationError,
    BadResponseError,
    ContextOverflowError,
    Finish,
    ModelError,
    ModelInfo,
    ModelRequest,
    RateLimitedError,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    ServerError,
    StreamEvent,
    StreamFailed,
    TextContent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputEnd,
    ToolInputStart,
    TransportError,
    Usage,
)
from strata_core.testing.script import (
    DEFAULT_TITLE_MARKERS,
    TITLE_TEXT,
    ScriptedToolCall,
    ScriptError,
    ScriptExhaustedError,
    Turn,
    check_consumed,
    is_title_text,
    parse_script,
    pieces,
)

SCRIPTED_INFO = ModelInfo(provider_id="scripted", id="scripted-model", name="Scripted model")


class ScriptedModelOptions(TypedDict, total=False):
    """`ScriptedModel`'s keywords, declared once for it and for the subclasses that pass them on."""

    info: ModelInfo
    """What the model reports as its `info` (default `SCRIPTED_INFO`)."""
    title_markers: Sequence[str]
    """System-prompt phrases that make a request a title request (default `DEFAULT_TITLE_MARKERS`)."""
    title_text: str
    """The answer to every title request (default `TITLE_TEXT`)."""


class ScriptedModel:
    """A `LanguageModel` answering from `script`; `requests` holds every `ModelRequest` it received."""

    def __init__(
        self, script: Sequence[Turn | Mapping[str, Any]] = (), **options: Unpack[ScriptedModelOptions]
    ) -> None:
        self.script = parse_script(script)
        self.title_markers = tuple(options.get("title_markers", DEFAULT_TITLE_MARKERS))
        self.title_text = options.get("title_text", TITLE_TEXT)
        self.requests: list[ModelRequest] = []
        self.title_requests: list[ModelRequest] = []
        self.main_requests: list[ModelRequest] = []
        self.turns_used = 0
        self.unscripted: list[ScriptExhaustedError] = []
        """Every call that found the script exhausted (each was also raised to its caller)."""
        self._info = options.get("info", SCRIPTED_INFO)

    @property
    def info(self) -> ModelInfo:
        return self._info

    def stream(self, request: ModelRequest) -> AbstractAsyncContextManager[AsyncIterator[StreamEvent]]:
        return self._stream(request)

    @asynccontextmanager
    async def _stream(self, request: ModelRequest) -> AsyncIterator[AsyncIterator[StreamEvent]]:
        self.requests.append(request)
        title = is_title_text(_system_text(request), self.title_markers)
        (self.title_requests if title else self.main_requests).append(request)
        first = Turn(text=self.title_text) if title else self.next_turn()
        events = self.answer(first, len(self.requests) - 1)
        try:
            yield events
        finally:
            with anyio.CancelScope(shield=True):
                await events.aclose()

    def answer(self, turn: Turn, number: int) -> AsyncGenerator[StreamEvent, None]:
        """The events that answer request `number` with `turn` (strata-providers' double replays a wire here)."""
        return play(turn, number)

    def next_turn(self) -> Turn:
        """The script's next turn, counted; raises `ScriptExhaustedError` past the last one."""
        self.turns_used += 1
        if self.turns_used > len(self.script):
            error = ScriptExhaustedError("ScriptedModel", self.turns_used, len(self.script), len(self.requests) - 1)
            self.unscripted.append(error)
            raise error
        return self.script[self.turns_used - 1]

    def assert_script_consumed(self) -> None:
        """Fail if a call went unscripted, even one whose error something swallowed, or if turns were left over."""
        check_consumed("ScriptedModel", self.script, self.turns_used, self.unscripted)


async def play(turn: Turn, number: int = 0) -> AsyncGenerator[StreamEvent, None]:
    """One turn as stream events; a failure is the last event, a `StreamFailed` (as the wires end one)."""
    if turn.malformed is not None:
        raise ScriptError("`malformed` scripts a broken wire chunk: play it with strata-providers' ScriptedModel")
    if turn.is_error_response:
        yield StreamFailed(_response_error(turn))
        return
    for sent, event in enumerate(_content(turn, number)):
        if turn.cut_after is not None and sent >= turn.cut_after:
            yield StreamFailed(TransportError(f"the scripted stream was cut after {turn.cut_after} events"))
            return
        if turn.delay:
            await anyio.sleep(turn.delay)
        yield event
    if turn.stream_error is not None:
        yield StreamFailed(_stream_error(turn, turn.stream_error))
        return
    if turn.hang:
        await anyio.sleep_forever()
    yield Finish(turn.finish_reason, _usage(turn))


def _content(turn: Turn, number: int) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    if turn.reasoning:
        rid = f"reasoning-{number}"
        deltas = [ReasoningDelta(rid, piece) for piece in pieces(turn.reasoning, turn.chunk_size)]
        events += [ReasoningStart(rid), *deltas, ReasoningEnd(rid)]
    if turn.text:
        tid = f"text-{number}"
        events += [TextStart(tid), *(TextDelta(tid, p) for p in pieces(turn.text, turn.chunk_size)), TextEnd(tid)]
    for k, call in enumerate(turn.tool_calls):
        events += _tool_call(call, call.id or f"call_{number}_{k}", turn.chunk_size)
    return events


def _tool_call(call: ScriptedToolCall, call_id: str, chunk_size: int | None) -> list[StreamEvent]:
    raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    arguments, error = json_text.tool_arguments(raw)
    deltas = [ToolInputDelta(call_id, piece) for piece in pieces(raw, chunk_size)]
    done = ToolCall(call_id=call_id, tool_name=call.name, input=arguments, raw_input=raw, parse_error=error)
    return [ToolInputStart(call_id, call.name), *deltas, ToolInputEnd(call_id), done]


def _usage(turn: Turn) -> Usage:
    used = turn.usage
    total = used.input + used.cache_read + used.cache_write + used.output + used.reasoning
    return Usage(
        input_tokens=used.input,
        output_tokens=used.output,
        reasoning_tokens=used.reasoning,
        cache_read_tokens=used.cache_read,
        cache_write_tokens=used.cache_write,
        total_tokens=total,
        cost=used.cost,
    )


def _response_error(turn: Turn) -> ModelError:
    """The error a provider's response with the turn's `status` stands for (the wires' classification)."""
    status = turn.status or 500
    message = f"{status}: {turn.message or f'scripted error {status}'}"
    retry_after = turn.retry_after if turn.retry_after is not None else _seconds(turn.retry_after_ms)
    if status == 413 or turn.code == "context_length_exceeded":
        return ContextOverflowError(message, status=status)
    if status in (401, 403):
        return AuthenticationError(message, status=status)
    if status in (429, 529):
        return RateLimitedError(message, status=status, retry_after=retry_after)
    if status == 408:
        return TransportError(message, status=status, retry_after=retry_after)
    if status >= 500 or status == 409:
        return ServerError(message, status=status, retry_after=retry_after)
    return BadResponseError(message, status=status)


def _stream_error(turn: Turn, payload: Mapping[str, Any]) -> ModelError:
    message = str(payload.get("message") or turn.message or "scripted stream error")
    if payload.get("code") == "context_length_exceeded":
        return ContextOverflowError(message)
    if payload.get("type") in ("overloaded_error", "rate_limit_error"):
        return RateLimitedError(message)
    return ServerError(message)


def _seconds(milliseconds: int | None) -> float | None:
    return milliseconds / 1000 if milliseconds is not None else None


def _system_text(request: ModelRequest) -> str:
    if request.system:
        return "\n".join(request.system)
    first = request.messages[0] if request.messages else None
    if first is None:
        return ""
    if first.role == "system":
        return first.content
    return "\n".join(part.text for part in first.content if isinstance(part, TextContent))
