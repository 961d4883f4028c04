"""Plain `key: text` frontmatter is read without PyYAML, and always exactly as PyYAML reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

from strata_core.markdown import parse_markdown_text, simple_frontmatter
from strata_core.texts import read_prompt

PLAIN = [
    "name: reviewer\ndescription: Reviews code for style and bugs.\n",
    "description: Use only when asked - config files, .strata/ dirs, ~/.config/strata/ (AGENTS.md).\n",
    "url: http://example.com/x#frag\nmode: subagent\nallowed-tools: read, grep\n",
    'title: C# and F# notes\nnote: it\'s "quoted" inside, [brackets] and {braces} too\n',
    "name: trailing spaces   \nmodel: anthropic/claude-sonnet-4-5\n",
    "y: n\nYes_please: Noted\ncolour: Off-white\nstate: nullable\n",
    "a: 1 thing\nb: e\nc: x: y\n",  # `x: y` inside a value is a nested mapping: not plain
]
TRICKY = [
    "enabled: true\n",
    "enabled: Yes\n",
    "on: push\n",
    "value: null\n",
    "value: NULL\n",
    "count: 12\n",
    "when: 2026-12-01\n",
    "pi: 3.14\n",
    "ratio: .5\n",
    "inf: .inf\n",
    "neg: -1\n",
    "list: [a, b]\n",
    "map: {a: 1}\n",
    "quoted: 'single'\n",
    'quoted: "double"\n',
    "anchor: &a text\n",
    "alias: *a\n",
    "tag: !!str 5\n",
    "comment: text # not part of it\n",
    "ends: with colon:\n",
    "tabbed: a\tb\n",
    "crlf: text\r\n",
    "nbsp: a\u00a0b\n",
    "block: |\n  line\n",
    "nested:\n  key: value\n",
    "  indented: value\n",
    "- item\n",
    "",
    "# only a comment\n",
    "name: a\n\ndescription: b\n",
    "key:value\n",
    "key:  two spaces\n",
]


@pytest.mark.parametrize("frontmatter", PLAIN + TRICKY)
def test_the_fast_reading_is_pyyamls_whenever_it_applies(frontmatter: str) -> None:
    fast = simple_frontmatter(frontmatter)
    if fast is None:
        return  # left to PyYAML
    expected = yaml.load(frontmatter, Loader=yaml.CSafeLoader)
    assert fast == {str(k): v for k, v in expected.items()}
    assert all(isinstance(value, str) for value in expected.values())


@pytest.mark.parametrize("frontmatter", PLAIN[:-1])
def test_plain_text_lines_take_the_fast_reading(frontmatter: str) -> None:
    assert simple_frontmatter(frontmatter) is not None


@pytest.mark.parametrize("frontmatter", [*TRICKY[:-1], PLAIN[-1]])
def test_anything_yaml_could_read_differently_goes_to_pyyaml(frontmatter: str) -> None:
    assert simple_frontmatter(frontmatter) is None


def test_the_builtin_skill_is_read_without_pyyaml() -> None:
    text = read_prompt("skills/customize-strata.md")
    frontmatter = text.split("---\n")[1]
    assert simple_frontmatter(frontmatter) is not None
    document = parse_markdown_text(text, Path("customize-strata.md"))
    assert document.data["name"] == "customize-strata"


def test_documents_read_the_same_either_way() -> None:
    text = "---\nname: reviewer\ndescription: Reviews code.\n---\n\n# Body\n"
    document = parse_markdown_text(text, Path("agent.md"))
    assert document.data == {"name": "reviewer", "description": "Reviews code."}
    assert document.body == "# Body"
