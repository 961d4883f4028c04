"""Frontmatter whose YAML aliases expand without bound (a "billion laughs") is refused as it is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.markdown import MarkdownFrontmatterError, parse_markdown


def laughs(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines)


def markdown(tmp_path: Path, frontmatter: str) -> Path:
    path = tmp_path / "agent.md"
    path.write_text(f"---\ndescription: d\n{frontmatter}\n---\nbody\n")
    return path


def test_aliases_that_multiply_past_a_million_are_refused_naming_the_file(tmp_path: Path) -> None:
    path = markdown(tmp_path, laughs(8))
    with pytest.raises(MarkdownFrontmatterError) as caught:
        parse_markdown(path)
    assert str(caught.value).startswith(f"{path}: invalid YAML frontmatter: its aliases (`*name`) repeat values")


def test_aliases_repeating_a_long_string_count_its_characters(tmp_path: Path) -> None:
    long = "x" * 200_000
    path = markdown(tmp_path, f"a: &a {long}\nb: [" + ", ".join(["*a"] * 12) + "]")
    with pytest.raises(MarkdownFrontmatterError, match="repeat values"):
        parse_markdown(path)


def test_an_alias_inside_its_own_value_is_refused(tmp_path: Path) -> None:
    path = markdown(tmp_path, "a: &a [1, *a]")
    with pytest.raises(MarkdownFrontmatterError, match="refers to the value that contains it"):
        parse_markdown(path)


def test_values_nested_too_deeply_are_refused(tmp_path: Path) -> None:
    nested = "\n".join("  " * depth + f"k{depth}:" for depth in range(300)) + "\n" + "  " * 300 + "v"
    with pytest.raises(MarkdownFrontmatterError, match="nested more than 256 levels deep"):
        parse_markdown(markdown(tmp_path, nested))


def test_ordinary_aliases_still_work(tmp_path: Path) -> None:
    document = parse_markdown(markdown(tmp_path, laughs(4) + "\nbase: &b {x: 1}\nother: *b"))
    assert document.data["other"] == {"x": 1}
    assert len(document.data["a3"]) == 9
