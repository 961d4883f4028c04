"""`strata agent create` writes a markdown agent from answers; `strata completion SHELL` completes commands."""

from __future__ import annotations

import json

import pytest
from cli_harness import Cli

from strata_cli.agent_file import agent_markdown


def test_agent_create_asks_and_writes_the_agent_file(cli: Cli) -> None:
    answers = "reviewer\nReviews code: bugs first\nsubagent\nread, grep glob\n"
    done = cli("agent", "create", stdin=answers)
    assert done.returncode == 0, done.stderr
    path = cli.project / ".strata/agent/reviewer.md"
    assert f"Created {path}." in done.stdout
    text = path.read_text()
    assert text.startswith('---\ndescription: "Reviews code: bugs first"\nmode: subagent\ntools:\n  bash: false\n')
    assert "  read: false" not in text and "  edit: false" in text
    listed = {agent["name"]: agent for agent in json.loads(cli("agent", "list", "--json").stdout)}
    assert listed["reviewer"]["mode"] == "subagent"
    assert listed["reviewer"]["description"] == "Reviews code: bugs first"


def test_agent_create_takes_options_and_refuses_to_overwrite(cli: Cli) -> None:
    args = ["agent", "create", "--name", "helper", "--description", "Helps", "--mode", "primary", "--tools", "all"]
    assert cli(*args).returncode == 0
    text = (cli.project / ".strata/agent/helper.md").read_text()
    assert text == agent_markdown("Helps", "primary", ["bash"], ["bash"], "Helps") and "tools:" not in text
    again = cli(*args)
    assert again.returncode == 1 and "already exists" in again.stderr


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ("bad name!\nx\nsubagent\nall\n", "cannot name an agent"),
        ("ok\nx\nsubagent\nread, hammer\n", "Unknown tool(s): hammer. Choose from: bash, read"),
    ],
)
def test_agent_create_explains_a_bad_answer(cli: Cli, answers: str, message: str) -> None:
    done = cli("agent", "create", stdin=answers)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert not (cli.project / ".strata").exists()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_script_for_each_shell(cli: Cli, shell: str) -> None:
    done = cli("completion", shell)
    assert done.returncode == 0 and "_STRATA_COMPLETE" in done.stdout


def test_the_completion_script_completes_commands_and_options(cli: Cli) -> None:
    def complete(words: str) -> list[str]:
        env = {"_STRATA_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - 1)}
        return [line.split(",", 1)[1] for line in cli(extra_env=env).stdout.splitlines()]

    assert complete("strata ru") == ["run"]
    assert "--command" in complete("strata run --com")
