"""Outside git, `strata run -c` continues the current directory's latest session and says which one it is."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, user_text, write_config

from strata_providers.testing import ScriptedServer


def test_continue_outside_git_prefers_this_directorys_session_and_names_it(
    cli: Cli, tmp_path: Path, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    server = scripted([{"text": "a"}, {"text": "b"}, {"text": "c"}])
    here, there = tmp_path / "plain" / "here", tmp_path / "plain" / "there"
    for directory in (here, there):
        directory.mkdir(parents=True)
        write_config(directory, mock_provider_config(server.base_url))
    assert cli("run", "--title", "mine", "first here", cwd=here).returncode == 0
    assert cli("run", "--title", "elsewhere", "later there", cwd=there).returncode == 0  # the newest, globally
    resumed = cli("run", "-c", "and again", cwd=here)
    assert resumed.returncode == 0, resumed.stderr
    [mine] = [s for s in json.loads(cli("session", "list", "--json", cwd=here).stdout) if s["title"] == "mine"]
    assert f'Continuing {mine["id"]} "mine"' in resumed.stderr.splitlines()
    third = server.main_requests[2].body
    assert "first here" in json.dumps(third["messages"]) and "later there" not in json.dumps(third["messages"])
    assert user_text(third) == "and again"
