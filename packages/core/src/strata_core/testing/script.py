"""A script of model turns, shared by the model double (`ScriptedModel`) and strata-providers' `ScriptedServer`.

Turns are written as the oracle's scripted_server.py reads them (plain JSON objects) or as `Turn` values:

    {"text": "Hello."}                                           a streamed answer, finish "stop"
    {"tool_calls": [{"name": "read", "arguments": {...}}]}         tool calls, finish "tool-calls"
    {"reasoning": "Let me think.", "text": "Done."}                reasoning before the text (or tool calls)
    {"status": 429, "retry_after": 1}                              an error response, consumed once

and a few more keys for the cases a test needs: `usage`, `finish`, `chunk_size`, `delay`, `cut_after`,
`malformed`, `stream_error`, `hang` and the error details `retry_after_ms`, `message`, `code`
(see `Turn` for each).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from attrs import field, frozen

from strata_core.errors import StrataError
from strata_core.llm import FinishReason


class ScriptError(StrataError, ValueError):
    """A turn that is not written right; the message names the turn and the key."""


class ScriptExhaustedError(StrataError, AssertionError):
    """A model call arrived after the last scripted turn: the test did more calls than it planned.

    An `AssertionError`, not a `ModelError`: it is the test's failure, so the engine lets it through instead
    of storing it on the message as it would a provider's failure.
    """

    def __init__(self, source: str, turn: int, script_length: int, request_index: int) -> None:
        super().__init__(
            f"{source}: the script ran out: turn #{turn} was asked for (by requests[{request_index}]), "
            f"but the script has only {script_length} turn(s); add a turn for it"
        )
        self.source = source
        """Who ran out: "ScriptedModel" or "ScriptedServer"."""
        self.turn = turn
        """The 1-based number of the turn the call asked for (titles do not count)."""
        self.script_length = script_length
        self.request_index = request_index
        """Where the call is in the double's `requests` (0-based; titles and other requests included)."""

    def __reduce__(self) -> tuple[object, ...]:
        # Keeps the error picklable (pytest-xdist, multiprocessing) despite the extra constructor arguments.
        return (type(self), (self.source, self.turn, self.script_length, self.request_index))


@frozen
class ScriptedToolCall:
    name: str
    arguments: Mapping[str, Any] | str = field(factory=dict)
    """An object, or a raw string (to script arguments that are not valid JSON)."""
    id: str | None = None
    """The call id; generated (`call_<request>_<k>` / `toolu_<request>_<k>`) when not given."""


@frozen
class TurnUsage:
    """Token counts reported at the end of the turn (the defaults are the oracle server's)."""

    input: int = 10
    output: int = 3
    reasoning: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float | None = None
    """USD the provider says the call cost (chat wire only, as OpenRouter's `usage.cost`)."""


@frozen
class Turn:
    """One model answer, or one failure."""

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    usage: TurnUsage = field(factory=TurnUsage)
    finish: FinishReason | None = None
    """Finish reason to report; by default "tool-calls" when there are tool calls, else "stop"."""
    chunk_size: int | None = None
    """Split text, reasoning and tool arguments into pieces of this many characters (default: one piece)."""
    delay: float = 0.0
    """Seconds to wait before each event is sent."""
    cut_after: int | None = None
    """Send only this many events, then drop the connection mid-stream."""
    malformed: str | None = None
    """A broken `data:` payload sent right after the first event."""
    stream_error: Mapping[str, Any] | None = None
    """An error event after the content, e.g. `{"type": "overloaded_error", "message": "..."}`."""
    hang: bool = False
    """After the content, send nothing more: the call only ends when the client gives up."""
    status: int | None = None
    """Answer with this HTTP status and a JSON error body instead of a stream."""
    retry_after: float | None = None
    """`retry-after` header (seconds) of an error response."""
    retry_after_ms: int | None = None
    """`retry-after-ms` header of an error response."""
    message: str | None = None
    """Error message of an error response or stream error."""
    code: str | None = None
    """`error.code` of an error response, e.g. "context_length_exceeded"."""

    @property
    def is_error_response(self) -> bool:
        return self.status is not None

    @property
    def finish_reason(self) -> FinishReason:
        return self.finish or ("tool-calls" if self.tool_calls else "stop")

    @classmethod
    def from_json(cls, data: Mapping[str, Any], position: int = 0) -> Turn:
        """A turn from its JSON form; unknown keys are an error naming the turn, not silently ignored."""
        unknown = set(data) - _FIELDS
        if unknown:
            raise ScriptError(f"turn {position}: unknown key(s) {sorted(unknown)}; known keys: {sorted(_FIELDS)}")
        values = dict(data)
        try:
            if "tool_calls" in values:
                values["tool_calls"] = tuple(_tool_call(call) for call in values["tool_calls"])
            if "usage" in values:
                values["usage"] = TurnUsage(**values["usage"])
            return cls(**values)
        except (TypeError, KeyError) as exc:
            raise ScriptError(f"turn {position}: {exc}") from exc


DEFAULT_TITLE_MARKERS = ("title generator",)
"""A request whose system prompt contains one of these is a title request (OpenCode's title prompt says so)."""
TITLE_TEXT = "Scripted title"

DONE = Turn(text="Done.")
"""What the oracle server answers once its script has run out."""

_FIELDS = frozenset(a.name for a in attrs.fields(Turn))


def parse_script(script: Sequence[Turn | Mapping[str, Any]]) -> tuple[Turn, ...]:
    """Turns from `Turn` values and/or their JSON form."""
    return tuple(turn if isinstance(turn, Turn) else Turn.from_json(turn, i) for i, turn in enumerate(script))


def pieces(text: str, size: int | None) -> list[str]:
    """`text` split as a turn's `chunk_size` splits it: pieces of `size` characters (one piece without a size)."""
    if not text:
        return []
    if not size or size >= len(text):
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def is_title_text(text: str, markers: Sequence[str]) -> bool:
    """Whether a system prompt belongs to a title request (case-insensitive match of any marker)."""
    lowered = text.lower()
    return any(marker.lower() in lowered for marker in markers)


def check_consumed(
    source: str, script: Sequence[Turn], turns_used: int, unscripted: Sequence[ScriptExhaustedError]
) -> None:
    """Raise when a call went unscripted (the first one), or when scripted turns were never asked for."""
    if unscripted:
        raise unscripted[0].with_traceback(None)
    if turns_used < len(script):
        left = len(script) - turns_used
        raise AssertionError(
            f"{source}: {left} of {len(script)} scripted turn(s) were never asked for "
            f"(the next would have been turn #{turns_used + 1}: {script[turns_used]!r})"
        )


def _tool_call(call: ScriptedToolCall | Mapping[str, Any]) -> ScriptedToolCall:
    if isinstance(call, ScriptedToolCall):
        return call
    return ScriptedToolCall(name=call["name"], arguments=call.get("arguments", {}), id=call.get("id"))
