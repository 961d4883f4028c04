"""A typo in a config key: one readable warning naming the file position and the key meant; strict refuses it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer


def test_a_mistyped_key_gives_one_warning_with_the_closest_key_and_its_line(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "hello"}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "modle": "mock/other"})
    result = cli("run", "say hello")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f'warning: {cli.project / "opencode.json"}:{line_of(cli, "modle")}:12: unknown config key "modle" '
        '(did you mean "model"?); Strata does not use it (OpenCode would refuse the file)'
    ]


def test_strict_config_stops_before_any_model_call(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "hello"}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "modle": "mock/other"})
    result = cli("run", "say hello", extra_env={"STRATA_CONFIG_STRICT": "1"})
    assert result.returncode == 1
    assert 'unknown config key "modle" (did you mean "model"?)' in result.stderr
    assert server.main_requests == []


def test_the_strict_flag_refuses_the_unknown_key_as_the_variable_does(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "hello"}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "modle": "mock/other"})
    result = cli("--strict", "run", "say hello")
    assert result.returncode == 1
    assert 'unknown config key "modle" (did you mean "model"?)' in result.stderr
    assert server.main_requests == []


def test_a_huge_unknown_key_is_quoted_in_part(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "hello"}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "k" * 100_000: 1})
    result = cli("run", "say hello")
    assert result.returncode == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert f'unknown config key "{"k" * 80}... (100,000 characters)"; Strata does not use it' in warning
    assert len(warning) < 400


def line_of(cli: Cli, key: str) -> int:
    lines = (cli.project / "opencode.json").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if f'"{key}"' in line)


def test_an_agent_without_a_name_is_left_out_with_a_warning(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "hello"}])
    write_config(cli.project, {**mock_provider_config(server.base_url), "agent": {"": {"prompt": "x"}, " ": {}}})
    listed = cli("agent", "list")
    assert listed.returncode == 0, listed.stderr
    assert all(line.strip() for line in listed.stdout.splitlines())
    assert listed.stderr.count("has no name to choose it by; it is left out") == 2
