"""The interactive mode for real: `strata` in a pseudo-terminal (pexpect), typed at like a person would."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pexpect
from cli_harness import STRATA, Cli, mock_provider_config, user_text, write_config
from mcp_servers import fixture_server, wait_for_no_leftovers
from pty_terminal import Terminal

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_type_switch_to_plan_answer_a_permission_and_interrupt_a_turn(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    (cli.project / ".env").write_text("TOKEN=1\n")
    agents = cli.project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\ndescription: Reviews code\nmode: primary\n---\nYou review code.\n")
    slow = " ".join(f"word{i}" for i in range(200))
    server = scripted(
        [
            {"text": "Hello **there**."},
            {"text": "Here is the plan."},
            {"text": "Looks fine to me."},
            {"tool_calls": [{"name": "read", "arguments": {"filePath": str(cli.project / ".env")}}]},
            {"text": "The env has a token."},
            {"text": slow, "chunk_size": 10, "delay": 0.2},
            {"text": "Still here."},
        ]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build · mock/gpt-4o-mock")  # the bottom toolbar: agent and model

    term.send("say hello\r")
    term.expect("Hello there.")
    term.expect("build >")

    term.send("\t")  # Tab: build -> plan, shown in the prompt and the toolbar
    term.toolbar_shows("plan · mock/gpt-4o-mock")
    term.send("make a plan\r")
    term.expect("Here is the plan.")
    term.expect("plan >")  # keys are sent only once the prompt is back, as a person would
    plan_request = server.main_requests[1].body
    assert "Plan mode is active" in user_text(plan_request)  # the plan reminder reached the model

    term.send("\t")  # a custom primary agent is in the cycle too
    term.toolbar_shows("reviewer · mock/gpt-4o-mock")
    term.send("review this\r")
    term.expect("Looks fine to me.")
    term.expect("reviewer >")
    assert "You review code." in server.main_requests[2].body["messages"][0]["content"]
    term.send("\t")  # and then back to build
    term.toolbar_shows("build · mock/gpt-4o-mock")
    term.send("read the env file\r")
    term.expect("Permission needed: read .env")
    term.expect("allow? [o/a/r]")
    term.send("o")
    term.expect("The env has a token.")
    term.expect("build >")
    assert "TOKEN=1" in server.main_requests[4].body["messages"][-1]["content"]

    term.send("write a long essay\r")
    term.expect("word1")
    term.child.sendintr()  # Ctrl-C mid-turn stops the turn, not the app
    term.expect("Interrupted.")
    term.expect("build >")
    term.send("are you there?\r")
    term.expect("Still here.")
    term.expect("build >")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)
    assert len(server.main_requests) == 7


def test_a_subagents_permission_question_is_asked_and_answered(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    (cli.project / ".env").write_text("TOKEN=2\n")
    task = {"description": "Check the env", "prompt": "Read .env", "subagent_type": "general"}
    server = scripted(
        [
            {"tool_calls": [{"name": "task", "arguments": task}]},
            {"tool_calls": [{"name": "read", "arguments": {"filePath": str(cli.project / ".env")}}]},
            {"text": "The token is 2."},
            {"text": "The subagent found the token."},
        ]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build >")
    term.send("ask a subagent\r")
    term.expect("Permission needed: read .env")  # asked in the subagent's own session
    term.expect("allow? [o/a/r]")
    term.send("o")
    term.expect("The subagent found the token.")
    assert "TOKEN=2" in server.main_requests[2].body["messages"][-1]["content"]


def test_slash_commands(cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]) -> None:
    server = scripted([{"text": "First answer."}, {"text": "Summary of the work so far."}, {"text": "Fresh start."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal()
    term.expect("build >")
    term.send("/help\r")
    term.expect("/compact")
    term.expect("build >")
    term.send("/agent plan\r")
    term.expect("Agent: plan · mock/gpt-4o-mock")
    term.expect("plan >")
    term.send("/model mock/nope\r")
    term.expect('Error: Unknown model "nope" for provider "mock".')
    term.send("hello\x1b\rworld\r")  # Alt-Enter adds a line, Enter sends
    term.expect("First answer.")
    assert user_text(server.main_requests[0].body).startswith("hello\nworld")
    term.expect("plan >")
    term.send("/compact\r")
    term.expect("Summary of the work so far.")
    assert "anchored summary" in server.main_requests[1].body["messages"][0]["content"]  # the compaction agent
    term.expect("plan >")
    term.send("/export notes/session.json\r")
    term.expect("Exported to")
    exported = json.loads((cli.project / "notes" / "session.json").read_text())
    term.send("/sessions\r")
    term.expect("Continue one with /sessions ID.")
    term.send("/new\r")
    term.expect("New session")
    term.send("again\r")
    term.expect("Fresh start.")
    term.expect("plan >")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)
    sessions = json.loads(cli("session", "list", "--json").stdout)
    assert len(sessions) == 2
    assert exported["info"]["id"] in {s["id"] for s in sessions}


def test_bad_start_options_end_with_one_paragraph(cli: Cli, scripted: Scripted) -> None:
    server = scripted([])
    write_config(cli.project, mock_provider_config(server.base_url))
    for args, expected in (
        (["--agent", "nope"], 'Error: Agent not found: "nope". Available agents: build,'),
        (["-m", "mock/nope"], 'Error: Unknown model "nope" for provider "mock".'),
        (["-c"], "Error: There is no session to continue in this project yet; start without -c."),
    ):
        child = pexpect.spawn(str(STRATA), args, cwd=str(cli.project), env=dict(cli.env), encoding="utf-8")
        output = child.read()
        child.close()
        assert child.exitstatus == 1, output
        assert output.startswith(expected), output
        assert "Traceback" not in output


def test_plan_mode_hands_over_to_build_when_plan_exit_is_approved(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    server = scripted(
        [
            {"tool_calls": [{"name": "plan_exit", "arguments": {}}]},
            {"text": "Implementing the plan."},
            {"text": "Carrying on."},
        ]
    )
    write_config(cli.project, mock_provider_config(server.base_url))
    term = terminal(STRATA_EXPERIMENTAL_PLAN_MODE="1")
    term.expect("build · mock/gpt-4o-mock")
    term.send("\t")
    term.toolbar_shows("plan · mock/gpt-4o-mock")
    term.send("plan a greeting\r")
    term.expect("Permission needed: plan_exit .opencode/plans/")  # opencode.json: OpenCode's plans directory
    term.expect("Switch to the build agent")
    term.send("o")
    term.expect("Implementing the plan.")
    term.expect("build >")  # the next message goes to build, as OpenCode's TUI switches after plan_exit
    term.send("and then?\r")
    term.expect("Carrying on.")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)
    plan_step, handover, after = (r.body for r in server.main_requests)
    assert "plan_exit" in [t["function"]["name"] for t in plan_step["tools"]]
    assert user_text(handover).startswith("The plan at .opencode/plans/")
    assert "plan_exit" not in [t["function"]["name"] for t in after["tools"]]
    assert user_text(after) == "and then?"  # build after build: no reminder


def test_a_variant_is_picked_with_slash_variant_and_the_toolbar_shows_the_sessions_cost(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    server = scripted([{"text": "Thought hard.", "usage": {"input": 1_000_000, "output": 0}}])
    config = mock_provider_config(server.base_url)
    model = config["provider"]["mock"]["models"]["gpt-4o-mock"]
    model.update({"reasoning": True, "cost": {"input": 2, "output": 8}})
    write_config(cli.project, config)
    term = terminal()
    term.expect("build · mock/gpt-4o-mock")
    term.send("/variant\r")
    term.expect("Its variants: low, medium, high")
    term.send("/variant extreme\r")
    term.expect('has no variant "extreme"')
    term.send("/variant high\r")
    term.expect("Variant: high")
    term.toolbar_shows("mock/gpt-4o-mock (high)")
    term.send("think\r")
    term.expect("Thought hard.")
    term.expect("build >")
    assert server.main_requests[0].body["reasoning_effort"] == "high"
    term.toolbar_shows("tokens 1,000,000 in · 0 out · 0 cache read · 0 cache write · $2.00")
    term.send("/quit\r")
    term.child.expect(pexpect.EOF, timeout=20)


def test_an_mcp_tools_ask_is_answered_in_the_terminal_and_mcp_shows_the_servers(
    cli: Cli, scripted: Scripted, terminal: Callable[..., Terminal]
) -> None:
    server = scripted(
        [{"tool_calls": [{"name": "fixture_shout", "arguments": {"text": "quiet"}}]}, {"text": "It shouted."}]
    )
    config = {**mock_provider_config(server.base_url), "mcp": {"fixture": fixture_server()}}
    write_config(cli.project, {**config, "permission": {"fixture_*": "ask"}})
    term = terminal()
    term.expect("build >")
    term.send("/mcp\r")
    term.expect("fixture connected 7")
    term.expect("build >")
    term.send("shout quietly\r")
    term.expect("Permission needed: fixture_shout")
    term.expect("allow? [o/a/r]")
    term.send("o")
    term.expect("It shouted.")
    term.expect("build >")
    assert server.main_requests[1].body["messages"][-1]["content"] == "QUIET"
    term.send("\x04")
    term.child.expect(pexpect.EOF, timeout=20)
    assert wait_for_no_leftovers() == []
