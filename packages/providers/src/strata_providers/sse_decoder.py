"""Server-sent events split from a response body's bytes, as httpx-sse reads them, in fewer steps.

httpx-sse decodes the body to text, splits it into lines and feeds its decoder one line at a time: three
async generators and two decoder calls per line, about a quarter of a stream's decoding time when a provider
sends one small event per HTTP chunk (benchmarks/README.md, "Stream decoding"). `SseDecoder` takes the body's
chunks as they arrive and returns the complete events in them, splitting on the blank line that ends an event.
Its results are httpx-sse's, field by field (`ServerSentEvent`, so the wires' decoders read either):

- lines end with CRLF, LF or CR, also when a CRLF is split between two chunks;
- `data:` lines join with LF; one space after the colon is dropped; a line without a colon is a field
  with an empty value; comments (`:` first) and unknown fields are ignored;
- `event:` names the event; `id:` sets the last event id (kept for later events, ignored if it holds NUL);
  `retry:` is kept when it is an integer;
- a blank line dispatches an event when any of event, data, retry or a last event id is set;
- an event the body ends before its blank line is dropped.

The body is split on LF bytes before it is decoded, so a UTF-8 character split between two chunks stays whole
(LF and CR never occur inside a UTF-8 sequence); invalid UTF-8 becomes U+FFFD, as in httpx's text decoding.
"""

from __future__ import annotations

from httpx_sse import ServerSentEvent

_DATA_PREFIX = b"data: "
_EVENT_PREFIX = b"event: "


class SseDecoder:
    """The events of one response body, fed chunk by chunk."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._searched = 0
        """How much of `_buffer` is known to hold no blank line (so each byte is searched about once)."""
        self._after_cr = False
        """The last chunk ended in CR: an LF starting the next one ends the same line."""
        self._event = ""
        self._data: list[str] = []
        self._last_event_id = ""
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """The events that `chunk` completes, in order."""
        if not chunk:
            return []
        if self._after_cr or b"\r" in chunk:
            chunk = self._normalized(chunk)
        buffer = self._buffer
        if not buffer and chunk.endswith(b"\n\n") and chunk.find(b"\n\n") == len(chunk) - 2:
            return self._block(chunk[:-2])  # the common case: one whole event per chunk
        start = max(self._searched - 1, 0)  # a blank line may start at the previous chunk's last LF
        buffer += chunk
        events: list[ServerSentEvent] = []
        while buffer.startswith(b"\n"):  # a blank line right after an event's: extra blank lines
            del buffer[:1]
            start = 0
            if (event := self._dispatch()) is not None:
                events.append(event)
        end = buffer.rfind(b"\n\n", start)
        if end < 0:
            self._searched = len(buffer)
            return events
        complete = bytes(buffer[:end])
        del buffer[: end + 2]
        self._searched = 0
        for block in complete.split(b"\n\n"):
            events += self._block(block)
        return events

    def _normalized(self, chunk: bytes) -> bytes:
        """`chunk` with every line ending as LF; remembers a CR at its end for the next chunk."""
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._after_cr = chunk.endswith(b"\r")
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")

    def _block(self, block: bytes) -> list[ServerSentEvent]:
        """The events of `block`: lines without a blank line among them, whose end dispatches."""
        # Nearly every event is one `data:` line, or (Anthropic) an `event:` line and a `data:` line; nothing is
        # pending between blocks, so these are read whole.
        if block.startswith(_DATA_PREFIX):
            if b"\n" not in block:
                return [ServerSentEvent("", block[6:].decode("utf-8", "replace"), self._last_event_id)]
        elif block.startswith(_EVENT_PREFIX):
            end = block.find(b"\n")
            if end > 0 and block.startswith(_DATA_PREFIX, end + 1) and block.find(b"\n", end + 1) < 0:
                name = block[7:end].decode("utf-8", "replace")
                return [ServerSentEvent(name, block[end + 7 :].decode("utf-8", "replace"), self._last_event_id)]
        events: list[ServerSentEvent] = []
        for line in block.split(b"\n"):
            if line:
                self._field(line)
            elif (event := self._dispatch()) is not None:
                events.append(event)  # a blank line inside the block: the extra LF of "\n\n\n"
        if (event := self._dispatch()) is not None:
            events.append(event)
        return events

    def _field(self, line: bytes) -> None:
        if line.startswith(b":"):
            return  # a comment (a keepalive, usually)
        name, _, raw = line.partition(b":")
        value = raw.decode("utf-8", "replace")
        if value.startswith(" "):
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event = value
        elif name == b"id":
            if "\0" not in value:
                self._last_event_id = value
        elif name == b"retry":
            try:
                self._retry = int(value)
            except ValueError:
                pass

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._event and not self._data and not self._last_event_id and self._retry is None:
            return None
        event = ServerSentEvent(self._event, "\n".join(self._data), self._last_event_id, self._retry)
        self._event, self._data, self._retry = "", [], None
        return event
