"""The command itself: version, help, paths, and bad input that never ends in a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from cli_harness import Cli


def test_version_prints_the_package_version(cli: Cli) -> None:
    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == "strata 0.1.0"


def test_help_lists_the_commands(cli: Cli) -> None:
    done = cli("--help")
    assert done.returncode == 0
    for command in ("run", "session", "models", "agent", "debug"):
        assert f"  {command} " in done.stdout


def test_debug_paths_follow_the_xdg_variables(cli: Cli) -> None:
    done = cli("debug", "paths", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    home = Path(cli.env["HOME"])
    assert found["config"] == str(home / ".config/strata")
    assert found["database"] == str(home / ".local/share/strata/strata.db")
    assert found["tool_output"] == str(home / ".local/share/strata/tool-output")
    assert found["state"] == str(home / ".local/state/strata")
    assert found["log"] == str(home / ".local/state/strata/log/strata.log")


def test_an_unknown_command_is_a_usage_error(cli: Cli) -> None:
    done = cli("frobnicate")
    assert done.returncode == 2
    assert "No such command 'frobnicate'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_missing_directory_is_named(cli: Cli, tmp_path: Path) -> None:
    done = cli("debug", "config", "--dir", str(tmp_path / "nope"))
    assert done.returncode == 2
    assert "nope" in done.stderr and "does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_no_arguments_without_a_terminal_explains_how_to_run_one_message(cli: Cli) -> None:
    done = cli()
    assert done.returncode == 2
    assert "strata run MESSAGE" in done.stderr


def test_dir_before_the_command_applies_to_it(cli: Cli, tmp_path: Path) -> None:
    (cli.project / "strata.json").write_text('{"model": "openai/gpt-4o"}')
    done = cli("--dir", str(cli.project), "debug", "config", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["config"]["model"] == "openai/gpt-4o"


def test_interactive_options_before_a_command_are_refused_not_ignored(cli: Cli) -> None:
    done = cli("-m", "openai/gpt-4o", "run", "hi")
    assert done.returncode == 2
    assert "-m before a command applies to the interactive session only" in done.stderr
    assert "`strata run -m ...`" in done.stderr
