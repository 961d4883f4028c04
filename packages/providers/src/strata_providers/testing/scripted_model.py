"""strata-core's model double played through the real wires: each turn is rendered to the bytes a provider
would stream and decoded by the real decoder of the model's wire.

    model = ScriptedModel([{"tool_calls": [{"name": "read", "arguments": {"filePath": "a.txt"}}]},
                           {"text": "The file says hello."}])
    ...  # run the loop with it
    assert model.main_requests[1].messages[-1].role == "tool"

Same script format as `ScriptedServer` and as `strata_core.testing.ScriptedModel` (which it extends), same
behaviour as the HTTP wires: chat completions, or Messages for an `@ai-sdk/anthropic` model; errors classified
and retried as the wires do (without the wait); a retry plays the next turn, as a retried HTTP request would
get the server's next answer. Titles and an exhausted script behave as in the core double.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Unpack

import anyio
from httpx_sse import ServerSentEvent

from strata_core.llm import StreamEvent
from strata_core.testing import ScriptedModel as CoreScriptedModel
from strata_core.testing import ScriptedModelOptions, Turn
from strata_providers.anthropic_messages_stream import MessagesStreamDecoder
from strata_providers.errors import error_for_status
from strata_providers.openai_chat_stream import ChatStreamDecoder
from strata_providers.provider_spec import MESSAGES_WIRE_NPMS
from strata_providers.retry import RetryPolicy, stream_with_retries
from strata_providers.sse import StreamDecoder, decode_event
from strata_providers.testing.wire_events import Wire, error_body, error_headers, sse_events


async def _no_wait(seconds: float) -> None:
    """Retries are reported with their delay but not waited for: tests stay fast."""


class WireScriptedModel(CoreScriptedModel):
    """The core's `ScriptedModel` answering through the wire decoders and retries; `strata_providers.testing`
    exports it as `ScriptedModel`."""

    def __init__(
        self,
        script: Sequence[Turn | Mapping[str, Any]] = (),
        *,
        retry: RetryPolicy | None = None,
        **options: Unpack[ScriptedModelOptions],
    ) -> None:
        super().__init__(script, **options)
        self.retry = retry or RetryPolicy(sleep=_no_wait)

    def answer(self, turn: Turn, number: int) -> AsyncGenerator[StreamEvent, None]:
        turns = iter([turn])
        wire: Wire = "messages" if self.info.npm in MESSAGES_WIRE_NPMS else "chat"

        def attempt() -> AsyncGenerator[StreamEvent, None]:
            # A retry plays the next turn, as a retried HTTP request would get the server's next answer.
            return play(next(turns, None) or self.next_turn(), number, wire)

        return stream_with_retries(attempt, self.retry)


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
