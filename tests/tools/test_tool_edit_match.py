"""Placing an edit when the model's oldString is close to, but not exactly, the file's text."""

from __future__ import annotations

import pytest

from strata_core.tool.support.edit_match import (
    AMBIGUOUS,
    EMPTY_OLD,
    IDENTICAL,
    NOT_FOUND,
    SPAN_TOO_LARGE,
    EditMatchError,
    block_anchor,
    context_aware,
    escape_normalized,
    indentation_flexible,
    levenshtein,
    line_trimmed,
    replace,
    trimmed_boundary,
    whitespace_normalized,
)


def test_an_exact_unique_match_is_replaced() -> None:
    assert replace("a = 1\nb = 2\n", "b = 2", "b = 3") == "a = 1\nb = 3\n"


def test_several_exact_matches_are_ambiguous_unless_replace_all() -> None:
    content = "def f():\n    return 1\n\ndef g():\n    return 1\n"
    with pytest.raises(EditMatchError, match=f"^{AMBIGUOUS}$"):
        replace(content, "    return 1", "    return 2")
    assert replace(content, "    return 1", "    return 2", replace_all=True).count("return 2") == 2


def test_missing_text_is_reported_as_not_found() -> None:
    with pytest.raises(EditMatchError) as error:
        replace("a\n", "zzz", "y")
    assert str(error.value) == NOT_FOUND


def test_identical_and_empty_old_strings_are_refused() -> None:
    with pytest.raises(EditMatchError, match=f"^{IDENTICAL}$"):
        replace("a", "a", "a")
    with pytest.raises(EditMatchError) as error:
        replace("a", "", "b")
    assert str(error.value) == EMPTY_OLD


def test_lines_are_matched_ignoring_their_surrounding_whitespace() -> None:
    content = "if x:\n        call(1)   \n        done()\n"
    assert list(line_trimmed(content, "call(1)\ndone()")) == ["        call(1)   \n        done()"]
    assert replace(content, "call(1)\ndone()", "    call(2)") == "if x:\n    call(2)\n"


def test_a_block_is_found_by_its_first_and_last_lines_when_the_middle_is_close() -> None:
    content = "start()\nfirst line\nvalue = compute(a, b)\nend()\nother()\n"
    find = "first line\nvalue = compute(a, c)\nend()"
    assert list(block_anchor(content, find)) == ["first line\nvalue = compute(a, b)\nend()"]
    far = "first line\ncompletely different\nend()"
    assert list(block_anchor(content, far)) == []


def test_block_anchor_ignores_blocks_of_a_very_different_length() -> None:
    content = "first\n" + "middle\n" * 10 + "last\n"
    assert list(block_anchor(content, "first\nmiddle\nlast")) == []


def test_runs_of_whitespace_count_as_one_space() -> None:
    content = "def f():\n    return 1\n\ndef g():\n    return 1\n"
    assert list(whitespace_normalized(content, "def   g():")) == ["def g():"]
    assert replace(content, "def   g():", "def h():") == "def f():\n    return 1\n\ndef h():\n    return 1\n"
    assert list(whitespace_normalized("x = call(a,  b)  # note", "call(a, b)")) == ["call(a,  b)"]


def test_a_block_indented_differently_still_matches() -> None:
    content = "class A:\n    def f(self):\n        return 1\n"
    find = "def f(self):\n    return 1"
    assert list(indentation_flexible(content, find)) == ["    def f(self):\n        return 1"]


def test_escaped_newlines_and_quotes_are_read_as_what_they_stand_for() -> None:
    content = 'print("a")\nprint("b")\n'
    assert set(escape_normalized(content, 'print(\\"a\\")\\nprint(\\"b\\")')) == {'print("a")\nprint("b")'}
    assert replace(content, 'print(\\"b\\")', 'print("c")') == 'print("a")\nprint("c")\n'


def test_blank_space_around_the_whole_old_string_is_ignored() -> None:
    assert next(trimmed_boundary("x = 1\ny = 2\n", "\n  y = 2  \n")) == "y = 2"


def test_context_aware_accepts_half_matching_middles() -> None:
    content = "def f():\n    a = 1\n    b = 2\n    return a\n"
    find = "def f():\n    a = 1\n    b = 3\n    return a"
    assert list(context_aware(content, find)) == [content.rstrip("\n")]


def test_a_loose_match_much_larger_than_old_string_is_refused() -> None:
    # The anchors and the compared middle lines match, but the block hides a 600-character line the model
    # never wrote: replacing it would delete text the model has not seen.
    content = "first\nab\ncd\n" + "z" * 600 + "\nlast\n"
    assert next(block_anchor(content, "first\nab\ncd\nlast")).count("\n") == 4
    with pytest.raises(EditMatchError, match=f"^{SPAN_TOO_LARGE}$"):
        replace(content, "first\nab\ncd\nlast", "gone")


def test_levenshtein_distance() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("same", "same") == 0
