"""Slash commands and Tab cycling in the interactive mode."""

from __future__ import annotations

import pytest

from strata_cli.slash import SlashCommand, UnknownSlashCommandError, help_text, message_text, next_agent, parse


def test_a_slash_command_is_parsed_with_its_argument() -> None:
    assert parse("/model  mock/gpt-4o ") == SlashCommand("model", "mock/gpt-4o")
    assert parse("/exit") == SlashCommand("quit", "")


def test_ordinary_text_and_a_double_slash_are_messages() -> None:
    assert parse("fix the test") is None
    assert parse("//etc/hosts is odd") is None
    assert message_text("//etc/hosts is odd") == "/etc/hosts is odd"


def test_an_unknown_command_lists_the_known_ones() -> None:
    with pytest.raises(UnknownSlashCommandError, match=r"Unknown command /frob\. Commands: /help, /agent"):
        parse("/frob")


def test_help_names_every_command_and_the_keys() -> None:
    text = help_text()
    for name in ("/help", "/agent", "/model", "/sessions", "/new", "/compact", "/export", "/quit"):
        assert name in text
    assert "Tab switches the primary agent" in text


def test_tab_cycles_the_primary_agents_and_wraps() -> None:
    primary = ["build", "plan", "reviewer"]
    assert next_agent(primary, "build") == "plan"
    assert next_agent(primary, "reviewer") == "build"
    assert next_agent(primary, "general") == "build"
    assert next_agent([], "build") == "build"
