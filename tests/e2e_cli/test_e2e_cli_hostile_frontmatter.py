"""Hostile agent frontmatter and file references through the real CLI: a one-line error or a working agent."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_an_agent_with_a_yaml_date_runs_and_sends_the_date_as_text(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Dated."}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "model": "mock/gpt-4o-mock"})
    agents = cli.project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "dated.md").write_text("---\ndescription: d\nmode: primary\nupdated: 2024-01-01\n---\nYou are dated.\n")
    done = cli("run", "--agent", "dated", "hi")
    assert done.returncode == 0, done.stderr
    assert "Dated." in done.stdout
    assert server.main_requests[0].body["updated"] == "2024-01-01T00:00:00.000Z"


def test_an_agent_whose_yaml_aliases_explode_is_a_clear_error(cli: Cli) -> None:
    agents = cli.project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 8)]
    bomb = agents / "bomb.md"
    bomb.write_text("---\ndescription: laughs\nmode: primary\n" + "\n".join(lines) + "\n---\nbody\n")
    for args in (["debug", "config"], ["run", "--agent", "bomb", "hi"], ["agent", "list"]):
        done = cli(*args)
        assert done.returncode == 1, done.stderr
        assert done.stderr.startswith(f"Error: {bomb}: invalid YAML frontmatter: its aliases (`*name`) repeat"), args
        assert len(done.stderr.splitlines()) == 1


def test_an_agent_folder_linked_to_a_huge_tree_is_not_walked_to_the_end(cli: Cli) -> None:
    huge = cli.project.parent / "huge"
    for index in range(10_100):
        (huge / f"d{index // 100}").mkdir(parents=True, exist_ok=True)
        (huge / f"d{index // 100}" / f"f{index}").touch()
    agents = cli.project / ".opencode" / "agent"
    (agents / "sub").mkdir(parents=True)
    (agents / "sub" / "a.md").write_text("---\ndescription: d\n---\nbody\n")
    (agents / "sub" / "loop").symlink_to("..")
    (agents / "huge").symlink_to(huge)
    done = cli("agent", "list")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines() if line.startswith("sub/")] == ["sub/a"]
    assert f"{agents}: stopped looking for markdown files after 10,000 entries" in done.stderr


def test_a_file_reference_to_a_fifo_is_a_clear_error_not_a_hang(cli: Cli) -> None:
    os.mkfifo(cli.project / "pipe")
    config = cli.project / "opencode.json"
    config.write_text(json.dumps({"username": "{file:pipe}"}))
    done = cli("debug", "config")
    assert done.returncode == 1
    assert done.stderr == (
        f'Error: {config}:1: bad file reference "{{file:pipe}}": {cli.project / "pipe"} is not a regular file'
        " (it is a FIFO)\n"
    )
