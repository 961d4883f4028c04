"""Hostile config and markdown: every wrong type or value is a one-line error (exit 1), never exit 70."""

from __future__ import annotations

import json

from cli_harness import Cli


def test_a_string_where_a_list_of_provider_ids_belongs_is_refused(cli: Cli) -> None:
    config = cli.project / "opencode.json"
    config.write_text(json.dumps({"disabled_providers": "mock"}))
    done = cli("run", "hi")
    assert done.returncode == 1
    assert done.stderr == f'Error: {config}:1:24: disabled_providers: expected a list of provider ids, got "mock"\n'


def test_an_empty_model_is_refused_rather_than_meaning_no_model(cli: Cli) -> None:
    config = cli.project / "opencode.json"
    config.write_text(json.dumps({"model": ""}))
    done = cli("run", "hi")
    assert done.returncode == 1
    assert done.stderr == f'Error: {config}:1:11: model: expected a "provider/model" string, got ""\n'


def test_a_config_nested_100000_deep_is_a_clear_error(cli: Cli) -> None:
    config = cli.project / "opencode.json"
    config.write_text('{"x":' + "[" * 100_000)
    for args in (["run", "hi"], ["debug", "config"]):
        done = cli(*args)
        assert done.returncode == 1, done.stderr
        assert (
            done.stderr
            == f"Error: {config}: invalid JSON: nested too deeply (more than 256 levels of arrays and objects)\n"
        )


def test_a_non_utf8_agent_file_is_one_warning_and_other_agents_still_load(cli: Cli) -> None:
    agents = cli.project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "broken.md").write_bytes(b"---\ndescription: broken\n---\n\xff\xfe not text")
    (agents / "reviewer.md").write_text("---\ndescription: Reviews code\nmode: subagent\n---\nReview it.")
    done = cli("agent", "list")
    assert done.returncode == 0, done.stderr
    assert "reviewer" in done.stdout
    assert "broken" not in done.stdout
    warnings = [line for line in done.stderr.splitlines() if "broken.md" in line]
    assert len(warnings) == 1
    assert "not UTF-8 text" in warnings[0]


def test_an_unreadable_agent_file_is_one_warning(cli: Cli) -> None:
    agents = cli.project / ".opencode" / "agent"
    agents.mkdir(parents=True)
    (agents / "loop.md").mkdir()  # matches the agent glob, but cannot be read as a file
    done = cli("agent", "list")
    assert done.returncode == 0, done.stderr
    assert "build" in done.stdout
    assert [line for line in done.stderr.splitlines() if "loop.md" in line] != []


def test_numbers_that_are_not_finite_are_refused(cli: Cli) -> None:
    config = cli.project / "opencode.json"
    cases = {
        '{"agent": {"build": {"steps": 1e400}}}': "agent.build.steps: expected a positive whole number, got Infinity",
        '{"agent": {"build": {"temperature": NaN}}}': "agent.build.temperature: expected a number, got NaN",
        '{"provider": {"p": {"options": {"timeout": 1e400}}}}': "provider.p.options.timeout: expected milliseconds",
    }
    for text, message in cases.items():
        config.write_text(text)
        done = cli("run", "hi")
        assert done.returncode == 1, text
        assert message in done.stderr, text
