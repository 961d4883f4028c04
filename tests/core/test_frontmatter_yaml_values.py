"""YAML types JSON does not have, in agent and command frontmatter: converted as OpenCode would send them, or
refused with the file and the key, never an internal error when the request is encoded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from strata_core.config.errors import ConfigError
from strata_core.config.files import read_markdown_agents
from strata_core.context.command import read_markdown_commands


def agent_file(config_dir: Path, frontmatter: str, name: str = "dated") -> Path:
    agents = config_dir / "agent"
    agents.mkdir(parents=True, exist_ok=True)
    path = agents / f"{name}.md"
    path.write_text(f"---\ndescription: d\n{frontmatter}\n---\nYou are dated.\n")
    return path


def test_a_date_option_is_sent_as_javascript_would_send_it(tmp_path: Path) -> None:
    agent_file(tmp_path, "updated: 2024-01-01\nat: 2024-01-01 10:30:00.25+02:00")
    options = read_markdown_agents(tmp_path)["dated"]["options"]
    assert options == {"updated": "2024-01-01T00:00:00.000Z", "at": "2024-01-01T08:30:00.250Z"}
    json.dumps(options)  # what the request encoder does


def test_dates_sets_and_numbers_deep_in_options_are_json(tmp_path: Path) -> None:
    agent_file(tmp_path, "options:\n  seen: [2024-01-02]\n  tags: !!set {a, b}\n  1: .nan\n  when: {2024-01-03: x}")
    options = read_markdown_agents(tmp_path)["dated"]["options"]
    assert options == {
        "seen": ["2024-01-02T00:00:00.000Z"],
        "tags": {"a": None, "b": None},
        "1": None,
        "when": {"2024-01-03T00:00:00.000Z": "x"},
    }


def test_a_binary_value_is_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "blob: !!binary aGVsbG8=")
    with pytest.raises(ConfigError) as caught:
        read_markdown_agents(tmp_path)
    assert str(caught.value).startswith(f"{path}: blob: a YAML binary (`!!binary`) value cannot be sent")
    assert caught.value.key_path == "blob"


def test_a_date_where_an_agent_needs_text_is_refused_as_a_date(tmp_path: Path) -> None:
    path = agent_file(tmp_path, "model: 2024-01-01")
    with pytest.raises(ConfigError) as caught:
        read_markdown_agents(tmp_path)
    assert "model: expected" in str(caught.value)
    assert "got the date 2024-01-01 (put it in quotes to keep it as text)" in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_date_as_a_command_description_is_refused_as_a_date(tmp_path: Path) -> None:
    (tmp_path / "command").mkdir()
    path = tmp_path / "command" / "c.md"
    path.write_text("---\ndescription: 2024-01-01\n---\nDo it\n")
    with pytest.raises(ConfigError) as caught:
        read_markdown_commands(tmp_path)
    assert str(caught.value) == (
        f"{path}: description: expected a string, got the date 2024-01-01 (put it in quotes to keep it as text)"
    )
