"""Finding a key path's value in a config file's text, for `file:line:column` in config errors."""

from __future__ import annotations

import pytest

from strata_core.config.locate import locate

JSONC = """{
  // "compaction": {"reserved": 1} in a comment is not the value
  "model": "a/b", /* a block comment: { [ */
  compaction: {
    'auto': true,
    "reserved": "abc",
  },
  "permission": {"bash": {"git *": "maybe"}},
  "skills": {"urls": ["https://x", 3]},
  "odd \\"key\\"": 1
}"""


@pytest.mark.parametrize(
    ("keys", "position"),
    [
        (("model",), (3, 12)),
        (("compaction", "reserved"), (6, 17)),
        (("compaction", "auto"), (5, 13)),
        (("permission", "bash", "git *"), (8, 36)),
        (("skills", "urls", "1"), (9, 36)),
        (('odd "key"',), (10, 18)),
        (("compaction",), (4, 15)),
    ],
)
def test_values_are_found_past_comments_and_quotes(keys: tuple[str, ...], position: tuple[int, int]) -> None:
    assert locate(JSONC, keys) == position


@pytest.mark.parametrize("text", ['{"a": 1}', '{"a": ', "not json at all", '{"a": "unterminated'])
def test_a_key_that_is_not_there_or_text_it_cannot_follow_has_no_position(text: str) -> None:
    assert locate(text, ("b",)) is None
