"""Lone UTF-16 surrogates from outside become U+FFFD: in plain text, and in every string of decoded JSON."""

from __future__ import annotations

import json

import pytest

from strata_core import json_text
from strata_core.text import valid_strings, valid_text


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("hello \ud800 world", "hello \ufffd world"),
        ("x\udc80", "x\ufffd"),  # what surrogateescape makes of the byte 0x80
        ("\udfff\ud800", "\ufffd\ufffd"),  # a low half before a high one is no pair
        ("\ud83d\ude00", "\U0001f600"),  # a pair split into two code points is its character
        ("\ud800" * 3, "\ufffd" * 3),
    ],
)
def test_each_lone_surrogate_is_one_replacement_character(given: str, expected: str) -> None:
    assert valid_text(given) == expected
    assert valid_text(given).encode("utf-8")  # encodable now


def test_valid_text_is_returned_as_it_is() -> None:
    for text in ("plain", "caf\u00e9 \U0001f600 \ufffd", ""):
        assert valid_text(text) is text


def test_every_string_of_a_value_is_made_valid_keys_included() -> None:
    value = {"na\udc80me": ["a\ud800", {"deep": ("t\udfff",)}], "n": 1, "ok": None}
    assert valid_strings(value) == {"na\ufffdme": ["a\ufffd", {"deep": ("t\ufffd",)}], "n": 1, "ok": None}


def test_json_with_an_escaped_lone_surrogate_decodes_to_valid_strings() -> None:
    text = json.dumps({"text": "hello \ud800 world", "args": {"path\udc80": ["x\udbff"]}})
    assert "\\ud800" in text  # the escape, as a model's stream holds it
    assert json_text.loads(text) == {"text": "hello \ufffd world", "args": {"path\ufffd": ["x\ufffd"]}}
    assert json_text.loads('"\\ud83d\\ude00"') == "\U0001f600"  # an escaped pair is its character


def test_json_text_a_caller_decoded_with_surrogate_escapes_decodes_to_valid_strings() -> None:
    raw = b'{"name": "caf\xe9"}'.decode("utf-8", "surrogateescape")  # the code point itself, no escape
    assert json_text.loads(raw) == {"name": "caf\ufffd"}
