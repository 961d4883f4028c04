"""The interactive mode's commands, mentions, completion, resumed history and `/model`, in a pseudo-terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pexpect
from cli_harness import Cli, mock_provider_config, user_text, write_config
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def two_models(base_url: str) -> dict[str, Any]:
    config = mock_provider_config(base_url)
    config["provider"]["mock"]["models"]["other-mock"] = {"name": "other-mock", "tool_call": True}
    return config


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_custom_command_is_listed_completed_and_run(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    write(cli.project / ".opencode/command/review.md", "---\ndescription: Review a file\n---\nReview $1 closely.")
    server = scripted([{"text": "Reviewed it."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build >")
    term.send("/help\r")
    term.expect("Prompt commands (built-in and yours):")
    term.expect("/review [ARGS]  Review a file")
    term.expect("build >")
    term.send("/rev\t")  # Tab after `/` completes the command's name
    term.expect("/review")
    term.send(" src/a.py\r")
    term.expect("Reviewed it.")
    term.expect("build >")
    assert user_text(server.main_requests[0].body) == "Review src/a.py closely."
    term.send("/nope\r")
    term.expect("Unknown command /nope. Commands: /help")
    term.expect("/review.")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)


def test_mentions_are_completed_and_resolved(cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]) -> None:
    write(cli.project / "notes/todo.txt", "buy milk\n")
    server = scripted([{"text": "greet lives in a.py."}, {"text": "The explorer says a.py."}, {"text": "Milk."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build >")
    term.send("@exp\t")  # Tab after `@` completes a subagent's name
    term.expect("@explore")
    term.send(" where is greet\r")
    term.expect("The explorer says a.py.")
    term.expect("build >")
    assert user_text(server.main_requests[0].body) == "@explore where is greet"  # the subagent's own request
    term.send("read @notes/to\t")  # and a path
    term.expect("@notes/todo.txt")
    term.send("\r")
    term.expect("Milk.")
    assert "buy milk" in user_text(server.main_requests[2].body)
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)


def test_model_is_picked_with_tab_and_switched(cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]) -> None:
    server = scripted([{"text": "From the other model."}])
    write_config(cli.project, two_models(server.base_url))
    term = terminal()
    term.expect("build >")
    term.send("/model\r")  # the usable models, the current one marked
    term.expect("→ mock/gpt-4o-mock")
    term.expect("mock/other-mock")
    term.expect("build >")
    term.send("/model oth\t")
    term.expect("mock/other-mock")
    term.send("\r")
    term.expect("Model: mock/other-mock")
    term.toolbar_shows("build · mock/other-mock")
    term.send("hello\r")
    term.expect("From the other model.")
    assert server.main_requests[0].body["model"] == "other-mock"
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)


def test_a_resumed_session_shows_its_recent_turns(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    server = scripted([{"text": f"Answer number {n}."} for n in range(1, 6)])
    write_config(cli.project, mock_provider_config(server.base_url))
    for n in range(1, 5):
        args = ["run", f"question {n}"] if n == 1 else ["run", "-c", f"question {n}"]
        assert cli(*args).returncode == 0
    term = terminal("-c")
    term.expect("Continuing")
    before = term.expect("build >")
    assert "question1" not in before and "Answer number 1." not in before  # only the last turns
    assert "1earlierturn(s)" in before
    assert "question4" in before and "Answernumber4." in before  # (the screen is read without spaces)
    term.send("/history 10\r")
    term.expect("question 1")
    term.expect("Answer number 1.")
    term.expect("question 4")
    [session] = json.loads(cli("session", "list", "--json").stdout)
    term.send("/new\r")
    term.expect("New session")
    term.send(f"/sessions {session['id']}\r")  # continuing by id shows the recent turns too
    term.expect("Continuing")
    term.expect("question 4")
    term.expect("Answer number 4.")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)
    by_id = terminal("-s", session["id"])  # and so does starting with -s ID
    by_id.expect(f"Continuing Scripted title ({session['id']})")
    by_id.expect("question 4")
    by_id.expect("build >")
    by_id.send("/quit\r")
    by_id.child.expect(pexpect.EOF, timeout=20)
