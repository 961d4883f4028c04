"""Markdown with YAML frontmatter: strict parse, OpenCode's lenient retry, and errors that point at the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.markdown import MarkdownFrontmatterError, parse_markdown, sanitize_frontmatter


def write(tmp_path: Path, text: str, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_frontmatter_becomes_data_and_body_is_stripped(tmp_path: Path) -> None:
    doc = parse_markdown(write(tmp_path, "---\ndescription: Reviews code\ntemperature: 0.2\n---\n\nBe terse.\n\n"))
    assert doc.data == {"description": "Reviews code", "temperature": 0.2}
    assert doc.body == "Be terse."


def test_file_without_frontmatter_is_all_body(tmp_path: Path) -> None:
    doc = parse_markdown(write(tmp_path, "# Title\n\n---\n\ntext after a rule\n"))
    assert doc.data == {}
    assert doc.body == "# Title\n\n---\n\ntext after a rule"


def test_empty_frontmatter_is_empty_data(tmp_path: Path) -> None:
    doc = parse_markdown(write(tmp_path, "---\n---\nbody"))
    assert doc.data == {}
    assert doc.body == "body"


def test_crlf_files_parse_like_lf_files(tmp_path: Path) -> None:
    doc = parse_markdown(write(tmp_path, "---\r\nname: x\r\n---\r\nbody\r\n"))
    assert doc.data == {"name": "x"}
    assert doc.body == "body"


def test_unquoted_value_with_colon_is_retried_as_block_scalar(tmp_path: Path) -> None:
    doc = parse_markdown(write(tmp_path, "---\nname: reviewer\ndescription: Use when: the diff is big\n---\nBody"))
    assert doc.data == {"name": "reviewer", "description": "Use when: the diff is big"}


def test_sanitize_leaves_quoted_indented_and_comment_lines_alone() -> None:
    text = "---\n# note: a comment\na: 'x: y'\nb:\n  c: d\ne: f: g\n---\nbody"
    sanitized, line_of = sanitize_frontmatter(text)
    assert sanitized == "---\n# note: a comment\na: 'x: y'\nb:\n  c: d\ne: |-\n  f: g\n---\nbody"
    assert line_of == [1, 2, 3, 4, 5, 6, 6, 7, 8]


def test_broken_frontmatter_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "---\nname: x\ntools: [read, write\nmode: primary\n---\nbody")
    with pytest.raises(MarkdownFrontmatterError) as caught:
        parse_markdown(path)
    assert caught.value.path == path
    assert caught.value.line is not None and caught.value.line >= 3
    assert str(caught.value).startswith(f"{path}:{caught.value.line}: invalid YAML frontmatter:")


def test_error_line_refers_to_the_original_file_after_the_retry(tmp_path: Path) -> None:
    # Line 2 is rewritten into two lines by the retry; the error on line 3 must still say line 3.
    path = write(tmp_path, "---\na: b: c\n\tbad: tab\n---\n")
    with pytest.raises(MarkdownFrontmatterError) as caught:
        parse_markdown(path)
    assert caught.value.line == 3


def test_frontmatter_that_is_not_a_mapping_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MarkdownFrontmatterError, match="expected `key: value` lines"):
        parse_markdown(write(tmp_path, "---\n- a\n- b\n---\nbody"))


def test_unclosed_frontmatter_is_an_error_on_line_one(tmp_path: Path) -> None:
    with pytest.raises(MarkdownFrontmatterError) as caught:
        parse_markdown(write(tmp_path, "---\nname: x\nbody without a closing line\n"))
    assert caught.value.line == 1
