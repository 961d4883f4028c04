"""Symlinks under a config directory's agent and command folders: followed as OpenCode follows them, but a
loop is entered once, and a link to a huge tree is not walked without end."""

from __future__ import annotations

from pathlib import Path

import pytest

from strata_core.config import markdown_files as walk
from strata_core.config.files import read_markdown_agents
from strata_core.context.command import read_markdown_commands


def agent(path: Path, description: str = "d") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ndescription: {description}\n---\nbody\n")


def test_a_symlink_loop_gives_each_agent_once(tmp_path: Path) -> None:
    agent(tmp_path / "agent" / "sub" / "a.md")
    (tmp_path / "agent" / "sub" / "loop").symlink_to("..")
    assert sorted(read_markdown_agents(tmp_path)) == ["sub/a"]


def test_symlinked_agent_files_and_folders_still_load(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    agent(dotfiles / "team" / "reviewer.md")
    agent(dotfiles / "single.md")
    (tmp_path / "config" / "agent").mkdir(parents=True)
    (tmp_path / "config" / "agent" / "team").symlink_to(dotfiles / "team")
    (tmp_path / "config" / "agent" / "single.md").symlink_to(dotfiles / "single.md")
    assert sorted(read_markdown_agents(tmp_path / "config")) == ["single", "team/reviewer"]


def test_a_link_to_a_huge_tree_stops_after_the_entry_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "MAX_ENTRIES", 50)
    huge = tmp_path / "huge"
    for index in range(100):
        agent(huge / f"d{index:03d}" / "x.md")
    agent(tmp_path / "config" / "agent" / "mine.md")
    (tmp_path / "config" / "agent" / "huge").symlink_to(huge)
    found = read_markdown_agents(tmp_path / "config")
    assert "mine" in found
    assert len(found) < 50


def test_folders_nested_past_the_depth_limit_are_left_out(tmp_path: Path) -> None:
    deep = tmp_path / "agent" / Path(*["d"] * (walk.MAX_DEPTH + 2))
    agent(deep / "lost.md")
    agent(tmp_path / "agent" / "d" / "kept.md")
    assert list(read_markdown_agents(tmp_path)) == ["d/kept"]


def test_modes_are_read_only_directly_inside_their_folder(tmp_path: Path) -> None:
    agent(tmp_path / "mode" / "top.md")
    agent(tmp_path / "mode" / "inner" / "no.md")
    assert walk.markdown_files(tmp_path, ("mode", "modes"), nested=False) == ["mode/top.md"]


def test_a_command_folder_loop_gives_each_command_once(tmp_path: Path) -> None:
    agent(tmp_path / "command" / "c.md")
    (tmp_path / "command" / "again").symlink_to(".")
    assert list(read_markdown_commands(tmp_path)) == ["c"]
