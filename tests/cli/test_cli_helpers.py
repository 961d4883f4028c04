"""Small pure pieces of the CLI: the run message, config redaction, primary agents, the transcript."""

from __future__ import annotations

from strata_cli.agent_view import agent_not_found, primary_agents
from strata_cli.commands.run import compose_message
from strata_core.context.agent import AgentInfo
from strata_core.redaction import redact_data as redact


def test_message_words_are_joined_with_spaces_and_piped_text_follows() -> None:
    assert compose_message(("say", "hello world"), None) == "say hello world"
    assert compose_message(("review",), "diff --git a b\n+x\n\n") == "review\ndiff --git a b\n+x"
    assert compose_message((), "  indented\n") == "  indented"
    assert compose_message(("hi",), "\n\n") == "hi"


def test_redact_hides_credentials_anywhere_in_the_config() -> None:
    options = {"apiKey": "sk-1", "baseURL": "http://x"}
    config = {"provider": {"a": {"options": options, "headers": {"Authorization": "B"}}}}
    hidden = redact(config)["provider"]["a"]
    assert hidden["options"] == {"apiKey": "<redacted>", "baseURL": "http://x"}
    assert hidden["headers"] == {"Authorization": "<redacted>"}
    assert redact({"token_limit": 5, "api_key": ""}) == {"token_limit": 5, "api_key": ""}  # only non-empty strings


def _agent(name: str, mode: str = "primary", hidden: bool = False) -> AgentInfo:
    return AgentInfo(name=name, mode=mode, permission=(), hidden=hidden)  # type: ignore[arg-type]


def test_primary_agents_leave_out_subagents_and_hidden_ones() -> None:
    agents = [_agent("build"), _agent("explore", "subagent"), _agent("plan"), _agent("title", hidden=True),
              _agent("reviewer", "all")]  # fmt: skip
    assert primary_agents(agents) == ["build", "plan", "reviewer"]
    assert str(agent_not_found("x", agents)) == 'Agent not found: "x". Available agents: build, explore, plan, reviewer'
