"""Config text that is plain JSON takes the stdlib parser's fast path and means exactly what json5 reads."""

from __future__ import annotations

from pathlib import Path

import json5
import pytest

from strata_core.config.errors import ConfigError
from strata_core.config.files import parse_jsonc

SOURCE = Path("/project/opencode.json")


@pytest.mark.parametrize(
    "text",
    [
        '{"model": "mock/gpt-4o", "provider": {"mock": {"options": {"baseURL": "http://127.0.0.1:1/v1"}}}}',
        '{"a": 1, "a": 2, "big": 12345678901234567890, "f": 1.5e3, "neg": -0.0, "nan": NaN, "inf": -Infinity}',
        '{"s": "\\u00e9 tab\\t quote\\" slash\\/ \\u2028", "list": [true, false, null, [], {}]}',
        '  ["top", "level", "array"]  ',
    ],
)
def test_plain_json_reads_the_same_as_json5(text: str) -> None:
    value = parse_jsonc(text, SOURCE)
    expected = json5.loads(text)
    assert repr(value) == repr(expected)  # repr: NaN != NaN, and -0.0 == 0.0 would hide a difference


def test_comments_and_trailing_commas_still_parse() -> None:
    text = '{\n  // the model\n  "model": "mock/gpt-4o", /* inline */\n  "share": "disabled",\n}\n'
    assert parse_jsonc(text, SOURCE) == {"model": "mock/gpt-4o", "share": "disabled"}


def test_broken_jsonc_still_names_line_and_column() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_jsonc('{\n  "model": "a",\n  "share" "disabled"\n}\n', SOURCE)
    assert caught.value.line == 3 and caught.value.column is not None
    assert str(caught.value).startswith(f"{SOURCE}:3:")


def test_an_escaped_surrogate_pair_is_one_character_as_in_javascript() -> None:
    # json5 leaves two lone surrogates, which no request body or header could encode; OpenCode (JavaScript)
    # reads the character.
    assert parse_jsonc('{"name": "\\ud83d\\ude00"}', SOURCE) == {"name": "\U0001f600"}


def test_a_number_too_long_to_read_is_named_as_such_without_pythons_advice() -> None:
    with pytest.raises(ConfigError) as refused:
        parse_jsonc('{"experimental": {"mcp_timeout": 1' + "0" * 5000 + "}}", SOURCE)
    assert str(refused.value) == f"{SOURCE}: invalid JSON: a number has more than 4,300 digits"
