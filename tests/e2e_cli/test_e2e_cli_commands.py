"""Custom commands and `@` mentions through `strata run`, against the scripted server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, user_text, write_config
from mcp_servers import fixture_server

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_run_command_fills_the_template_runs_its_shell_and_attaches_its_files(cli: Cli, scripted: Scripted) -> None:
    write(cli.project / "src/a.py", "def greet():\n    return 'hi'\n")
    write(
        cli.project / ".opencode/command/review.md",
        "---\ndescription: Review a file\nagent: plan\n---\nReview @$1 for $2. Branch: !`echo main`\n",
    )
    server = scripted([{"text": "Reviewed."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--command", "review", "src/a.py", "naming and tests")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Reviewed.\n"
    assert "> plan · mock/gpt-4o-mock" in done.stderr  # the command's agent answers
    sent = user_text(server.main_requests[0].body)
    assert sent.startswith("Review @src/a.py for naming and tests. Branch: main")
    assert "def greet():" in sent  # the mentioned file is attached, as the read tool shows it


def test_run_command_from_config_appends_arguments_without_placeholders(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Hello back."}])
    config = mock_provider_config(server.base_url)
    config["command"] = {"hello": {"template": "Say hello.", "description": "greets"}}
    write_config(cli.project, config)
    done = cli("run", "--command", "hello", "to", "Ada")
    assert done.returncode == 0, done.stderr
    assert user_text(server.main_requests[0].body) == "Say hello.\n\nto Ada"


def test_an_agent_mentioned_in_a_command_is_asked_for_through_the_task_tool(cli: Cli, scripted: Scripted) -> None:
    task = {"description": "Find greet", "prompt": "Find greet", "subagent_type": "explore"}
    server = scripted([{"tool_calls": [{"name": "task", "arguments": task}]}, {"text": "In a.py."}, {"text": "Ok."}])
    config = mock_provider_config(server.base_url)
    config["command"] = {"find": {"template": "Have @explore find $ARGUMENTS"}}
    write_config(cli.project, config)
    done = cli("run", "--command", "find", "greet")
    assert done.returncode == 0, done.stderr
    sent = user_text(server.main_requests[0].body)
    assert sent.startswith("Have @explore find greet") and "task tool with subagent: explore" in sent
    assert "# Task Find greet (explore)" in done.stderr


def test_an_unknown_command_fails_before_a_session_is_stored(cli: Cli, scripted: Scripted) -> None:
    server = scripted([])
    config = mock_provider_config(server.base_url)
    config["command"] = {"hello": {"template": "Say hello."}}
    write_config(cli.project, config)
    done = cli("run", "--command", "nope")
    assert done.returncode == 1
    # Skills are commands too, Strata's built-in one included (as OpenCode lists its customize-opencode).
    assert 'Command not found: "nope". Available commands: customize-strata, hello, init, review.' in done.stderr
    assert "Traceback" not in done.stderr and not server.main_requests
    assert json.loads(cli("session", "list", "--json").stdout) == []
    as_json = cli("run", "--format", "json", "--command", "nope")
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [event["type"] for event in events] == ["error", "done"] and as_json.returncode == 1
    assert events[0]["error"]["data"]["message"].startswith('Command not found: "nope".')


def test_a_subagents_command_runs_as_a_subtask(cli: Cli, scripted: Scripted) -> None:
    write(
        cli.project / ".opencode/command/find.md", "---\nagent: explore\ndescription: find code\n---\nFind $ARGUMENTS"
    )
    server = scripted([{"text": "greet is in src/a.py."}, {"text": "The explorer found it."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--command", "find", "the greet function")
    assert done.returncode == 0, done.stderr
    first, second = (request.body for request in server.main_requests)
    assert user_text(first) == "Find the greet function"  # asked of the subagent, with no model call before
    assert "explore" in done.stderr  # the task line names the subagent
    tool_results = [m for m in second["messages"] if m["role"] == "tool"]
    assert "greet is in src/a.py." in tool_results[0]["content"]


def test_an_at_mention_of_a_subagent_hands_it_the_message(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Found greet."}, {"text": "Done looking."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "@explore find the greet function")
    assert done.returncode == 0, done.stderr
    assert user_text(server.main_requests[0].body) == "@explore find the greet function"
    assert "# Task find the greet function (explore)" in done.stderr


def test_an_at_mention_of_a_path_attaches_it(cli: Cli, scripted: Scripted) -> None:
    write(cli.project / "notes/todo.txt", "buy milk\n")
    server = scripted([{"text": "Milk."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "what is in @notes/todo.txt and @notes, please")
    assert done.returncode == 0, done.stderr
    sent = user_text(server.main_requests[0].body)
    assert "buy milk" in sent and "todo.txt" in sent.split("buy milk")[1]  # the file, then the directory listing


def test_an_mcp_servers_prompt_runs_as_a_command_with_its_arguments(cli: Cli, scripted: Scripted) -> None:
    server = scripted([{"text": "Reviewed."}])
    config = mock_provider_config(server.base_url)
    config["mcp"] = {"fixture": fixture_server(environment={"MCP_FIXTURE_PROMPTS": "1"})}
    write_config(cli.project, config)
    done = cli("run", "--command", "fixture:review", "x = 1", "style")
    assert done.returncode == 0, done.stderr
    # What OpenCode 1.18.33 sends for `opencode run --command fixture:review "x = 1" style` (oracle capture).
    assert user_text(server.main_requests[0].body) == "Review this code for style:\nx = 1"


def test_a_skill_runs_as_a_command_of_its_name(cli: Cli, scripted: Scripted) -> None:
    skill = cli.project / ".opencode/skill/tidy"
    write(skill / "SKILL.md", "---\nname: tidy\ndescription: Tidy up the imports of a file.\n---\nSort the imports.\n")
    server = scripted([{"text": "Tidied."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--command", "tidy", "src/a.py")
    assert done.returncode == 0, done.stderr
    # OpenCode 1.18.33's text for the same skill (oracle capture), in this project's directory.
    assert user_text(server.main_requests[0].body) == (
        f"Sort the imports.\n\n\nBase directory for this skill: {skill.resolve()}\n"
        "Relative paths in this skill (e.g., scripts/, references/) are relative to this base directory.\n\n"
        "src/a.py"
    )
