"""A hostile model against headless `strata run` (no `--auto`): it cannot grant itself permissions, plant a
git hook, or read secrets through grep."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def tool_output(server: ScriptedServer, request: int) -> str:
    message = server.main_requests[request].body["messages"][-1]
    assert message["role"] == "tool"
    return str(message["content"])


def test_the_model_cannot_grant_itself_external_directory(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n")
    grant = json.dumps({"permission": {"external_directory": "allow", "protected_path": "allow"}})
    server = scripted([call("write", filePath="strata.json", content=grant), {"text": "granted"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "configure yourself")
    assert done.returncode == 1
    assert "Permission 'protected_path' for strata.json needs approval" in done.stderr
    assert not (cli.project / "strata.json").exists()

    server = scripted([call("read", filePath=str(outside / "secret.txt")), {"text": "read"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "read the secret")
    assert done.returncode == 1 and "Permission 'external_directory'" in done.stderr
    assert len(server.main_requests) == 1


def test_the_model_cannot_plant_a_git_hook(cli: Cli, scripted: Scripted) -> None:
    hook = "#!/bin/sh\necho PWNED\n"
    server = scripted([call("write", filePath=".git/hooks/pre-commit", content=hook), {"text": "done"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "add a hook")
    assert done.returncode == 1 and "Permission 'protected_path' for .git/hooks/pre-commit" in done.stderr
    assert not (cli.project / ".git" / "hooks" / "pre-commit").exists()


def test_grep_without_a_path_returns_no_env_lines(cli: Cli, scripted: Scripted) -> None:
    (cli.project / ".env").write_text("API_TOKEN=root-secret\n")
    (cli.project / ".env.local").write_text("API_TOKEN=local-secret\n")
    (cli.project / "sub").mkdir()
    (cli.project / "sub" / ".env").write_text("API_TOKEN=sub-secret\n")
    (cli.project / "app.py").write_text("API_TOKEN = read_it()\n")
    server = scripted([call("grep", pattern="API_TOKEN"), {"text": "found"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "find the token")
    assert done.returncode == 0, done.stderr
    output = tool_output(server, 1)
    assert "read_it()" in output and "secret" not in output


def test_a_fifo_is_refused_and_the_run_goes_on(cli: Cli, scripted: Scripted) -> None:
    os.mkfifo(cli.project / "pipe")
    server = scripted([call("read", filePath="pipe"), call("edit", filePath="pipe", oldString="a", newString="b"),
                       {"text": "moved on"}])  # fmt: skip
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "read the pipe")  # on main this never returns
    assert done.returncode == 0, done.stderr
    assert done.stdout == "moved on\n"
    assert "FIFO (named pipe), not a regular file" in tool_output(server, 1)
    assert "FIFO (named pipe), not a regular file" in tool_output(server, 2)
