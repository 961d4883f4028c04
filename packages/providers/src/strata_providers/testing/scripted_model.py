"""An in-process `LanguageModel` that plays a script and records what it was asked.

    model = ScriptedModel([{"tool_calls": [{"name": "read", "arguments": {"filePath": "a.txt"}}]},
                           {"text": "The file says hello."}])
    ...  # run the loop with it
    assert model.main_requests[1].messages[-1].role == "tool"

Same script format as `ScriptedServer`, same behaviour: each turn is rendered to the bytes the server would
stream and decoded by the real decoder of the model's wire (chat completions, or Messages for an
`@ai-sdk/anthropic` model), errors are classified and retried as the HTTP wires do (without the wait), and
title requests are answered without consuming a turn. A call after the last turn raises
`ScriptExhaustedError` naming the turn and the request, at once and without a retry, so a test that makes one
call too many fails loudly; the model also remembers it, for `assert_script_consumed()`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
from httpx_sse import ServerSentEvent

from strata_core.llm import ModelInfo, ModelRequest, StreamEvent, TextContent
from strata_providers.anthropic_messages_stream import MessagesStreamDecoder
from strata_providers.errors import error_for_status
from strata_providers.openai_chat_stream import ChatStreamDecoder
from strata_providers.provider_spec import MESSAGES_WIRE_NPMS
from strata_providers.retry import RetryPolicy, stream_with_retries
from strata_providers.sse import StreamDecoder, decode_event
from strata_providers.testing.script import (
    DEFAULT_TITLE_MARKERS,
    TITLE_TEXT,
    ScriptExhaustedError,
    Turn,
    check_consumed,
    is_title_text,
    parse_script,
)
from strata_providers.testing.wire_events import Wire, error_body, error_headers, sse_events


async def _no_wait(seconds: float) -> None:
    """Retries are reported with their delay but not waited for: tests stay fast."""


SCRIPTED_INFO = ModelInfo(provider_id="scripted", id="scripted-model", name="Scripted model")


class ScriptedModel:
    """A `LanguageModel` answering from `script`; `requests` holds every `ModelRequest` it received."""

    def __init__(
        self,
        script: Sequence[Turn | Mapping[str, Any]] = (),
        *,
        info: ModelInfo = SCRIPTED_INFO,
        title_markers: Sequence[str] = DEFAULT_TITLE_MARKERS,
        title_text: str = TITLE_TEXT,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.script = parse_script(script)
        self.title_markers = tuple(title_markers)
        self.title_text = title_text
        self.retry = retry or RetryPolicy(sleep=_no_wait)
        self.requests: list[ModelRequest] = []
        self.title_requests: list[ModelRequest] = []
        self.main_requests: list[ModelRequest] = []
        self.turns_used = 0
        self.unscripted: list[ScriptExhaustedError] = []
        """Every call that found the script exhausted (each was also raised to its caller)."""
        self._info = info

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
        first = Turn(text=self.title_text) if title else self._next_turn()
        turns = iter([first])
        wire: Wire = "messages" if self._info.npm in MESSAGES_WIRE_NPMS else "chat"

        def attempt() -> AsyncGenerator[StreamEvent, None]:
            # A retry plays the next turn, as a retried HTTP request would get the server's next answer.
            turn = next(turns, None) or self._next_turn()
            return play(turn, len(self.requests) - 1, wire)

        events = stream_with_retries(attempt, self.retry)
        try:
            yield events
        finally:
            with anyio.CancelScope(shield=True):
                await events.aclose()

    def assert_script_consumed(self) -> None:
        """Fail if a call went unscripted, even one whose error something swallowed, or if turns were left over."""
        check_consumed("ScriptedModel", self.script, self.turns_used, self.unscripted)

    def _next_turn(self) -> Turn:
        self.turns_used += 1
        if self.turns_used > len(self.script):
            error = ScriptExhaustedError("ScriptedModel", self.turns_used, len(self.script), len(self.requests) - 1)
            self.unscripted.append(error)
            raise error
        return self.script[self.turns_used - 1]


async def play(turn: Turn, number: int = 0, wire: Wire = "chat") -> AsyncGenerator[StreamEvent, None]:
    """One turn as stream events, decoded by the real wire decoder from the bytes the server would send.

    So the events (ids, order, usage, where a failure cuts in) are exactly what the HTTP wire reports;
    failures raise the `ModelError` it would raise.
    """
    if turn.is_error_response:
        headers = dict(error_headers(turn))
        raise error_for_status(turn.status or 500, headers, json.dumps(error_body(turn, wire)))
    decoder: StreamDecoder = ChatStreamDecoder() if wire == "chat" else MessagesStreamDecoder()
    for frame in sse_events(turn, wire, number, "scripted"):
        if turn.delay:
            await anyio.sleep(turn.delay)
        for event in decode_event(decoder, _frame_event(frame)):
            yield event
        if decoder.finished:
            return
    if turn.hang:
        await anyio.sleep_forever()
    for event in decoder.end_of_stream():
        yield event


def _frame_event(frame: bytes) -> ServerSentEvent:
    # Frames from `sse_events` are simple: an optional `event:` line and one `data:` line.
    fields = dict(line.split(": ", 1) for line in frame.decode().strip().split("\n") if ": " in line)
    return ServerSentEvent(event=fields.get("event", "message"), data=fields.get("data", ""))


def _system_text(request: ModelRequest) -> str:
    if request.system:
        return "\n".join(request.system)
    first = request.messages[0] if request.messages else None
    if first is None:
        return ""
    if first.role == "system":
        return first.content
    return "\n".join(part.text for part in first.content if isinstance(part, TextContent))
