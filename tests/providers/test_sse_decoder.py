"""`SseDecoder` reads an event stream's bytes as httpx-sse reads the same stream, however the bytes are split."""

from __future__ import annotations

import httpx
import pytest
from httpx_sse import EventSource, ServerSentEvent

from strata_providers.sse_decoder import SseDecoder

Fields = tuple[str, str, str, int | None]


def fields(events: list[ServerSentEvent]) -> list[Fields]:
    return [(e.event, e.data, e.id, e.retry) for e in events]


def httpx_sse(body: bytes) -> list[Fields]:
    """What httpx-sse (public API) reads from `body`, given whole."""
    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)
    return fields(list(EventSource(response).iter_sse()))


def decoded(chunks: list[bytes]) -> list[Fields]:
    decoder = SseDecoder()
    return fields([event for chunk in chunks for event in decoder.feed(chunk)])


BODIES = {
    "one data line per event": b'data: {"a":1}\n\ndata: {"b":2}\n\n',
    "named events": b"event: content_block_delta\ndata: {}\n\nevent: ping\ndata: {}\n\n",
    "CRLF line ends": b"event: x\r\ndata: one\r\n\r\ndata: two\r\n\r\n",
    "CR line ends": b"data: one\r\rdata: two\r\r",
    "comments and keepalives": b": ping\n\n:\ndata: kept\n: inside\n\n",
    "multi-line data": b"data: first\ndata:second\ndata:  third\ndata\n\n",
    "id and retry fields": b"id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nid: bad\0id\nretry: soon\ndata: c\n\n",
    "extra blank lines after an id": b"id: 1\ndata: a\n\n\n\ndata: b\n\n",
    "unknown fields and a line without a colon": b"foo: bar\nevent\ndata: x\n\n",
    "an event cut off by the end of the body": b"data: whole\n\ndata: cut off",
    "UTF-8 text": "data: héllo — 世界 🙂\n\n".encode(),
    "invalid UTF-8": b"data: \xff\xfeok\n\n",
    "a blank line first": b"\n\ndata: x\n\n",
}


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_a_body_in_one_chunk_reads_as_httpx_sse_reads_it(body: bytes) -> None:
    assert decoded([body]) == httpx_sse(body)


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_a_body_split_at_any_byte_reads_the_same(body: bytes) -> None:
    expected = httpx_sse(body)
    for cut in range(1, len(body)):
        assert decoded([body[:cut], body[cut:]]) == expected, cut


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_a_body_one_byte_at_a_time_reads_the_same(body: bytes) -> None:
    assert decoded([body[i : i + 1] for i in range(len(body))]) == httpx_sse(body)


def test_the_expected_events_of_a_mixed_stream() -> None:
    body = b'event: message_start\r\ndata: {"a":\r\ndata: 1}\r\n\r\n: ping\r\n\r\nid: 9\r\ndata: x\r\n\r\n'
    assert decoded([body[:20], body[20:21], body[21:]]) == [
        ("message_start", '{"a":\n1}', "", None),
        ("message", "x", "9", None),
    ]


def test_a_crlf_split_between_two_chunks_is_one_line_end() -> None:
    # Were the CR and the LF two line ends, the blank line would end the event after its first data line.
    assert decoded([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [("message", "a\nb", "", None)]


def test_a_character_split_between_two_chunks_stays_whole() -> None:
    body = "data: 🙂é\n\n".encode()
    for cut in range(len(b"data: "), len(body) - 2):
        assert decoded([body[:cut], body[cut:]]) == [("message", "🙂é", "", None)], cut


def test_events_wait_for_the_blank_line_that_ends_them() -> None:
    decoder = SseDecoder()
    assert decoder.feed(b'data: {"text": "par') == []
    assert decoder.feed(b'tial"}\n') == []
    assert fields(decoder.feed(b"\ndata: next")) == [("message", '{"text": "partial"}', "", None)]
    assert fields(decoder.feed(b"\n\n")) == [("message", "next", "", None)]


def test_many_events_in_one_chunk_come_out_in_order() -> None:
    body = b"".join(b"data: %d\n\n" % i for i in range(1000))
    assert [data for _, data, _, _ in decoded([body[:4321], body[4321:]])] == [str(i) for i in range(1000)]
