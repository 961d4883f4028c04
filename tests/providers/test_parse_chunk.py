"""`parse_chunk`: one SSE payload as a JSON object; its shortcut for typical chunks keeps every check's result."""

from __future__ import annotations

import json

import pytest

from strata_core.llm import BadResponseError
from strata_providers.errors import parse_chunk

TYPICAL = '{"id":"c1","choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}]}'


def test_a_typical_chunk_is_its_json_object() -> None:
    assert parse_chunk(TYPICAL) == json.loads(TYPICAL)


@pytest.mark.parametrize(
    "data",
    [
        ' {"a": 1} ',  # whitespace around the object
        '{"text": "h\u00e9llo \u4e16\u754c"}',  # non-ASCII characters
        '{"text": "caf\\u00e9"}',  # an escape that is no surrogate
    ],
)
def test_chunks_off_the_shortcut_parse_the_same(data: str) -> None:
    assert parse_chunk(data) == json.loads(data)


def test_a_lone_surrogate_escape_becomes_the_replacement_character() -> None:
    assert parse_chunk('{"text": "a\\ud800b"}') == {"text": "a\ufffdb"}


def test_a_chunk_nested_past_the_limit_is_refused_even_when_short() -> None:
    deep = '{"a":' + "[" * 300 + "]" * 300 + "}"
    with pytest.raises(BadResponseError, match="nested too deeply"):
        parse_chunk(deep)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ('{"a": 1} trailing', "invalid JSON"),
        ('{"a": 1}{"b": 2}', "invalid JSON"),
        ('{"a": ', "invalid JSON"),
        ("[1, 2]", "expected a JSON object, got list"),
        ('"text"', "expected a JSON object, got str"),
    ],
)
def test_a_chunk_that_is_no_json_object_says_why(data: str, why: str) -> None:
    with pytest.raises(BadResponseError, match=why):
        parse_chunk(data)
