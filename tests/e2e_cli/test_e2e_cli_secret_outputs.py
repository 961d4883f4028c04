"""A `.env` file the user lets the model read reaches the model in that run and nowhere else: not the session
database, not `strata session export`, not the printed events, not a resumed run's request."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_core.secret_outputs import secret_placeholder
from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]
SECRET = "API_TOKEN=tok-0123456789-secret"


def _bodies(server: ScriptedServer) -> list[str]:
    return [json.dumps(request.body) for request in server.main_requests]


def test_an_approved_env_read_is_sent_once_and_stored_as_a_placeholder(
    cli: Cli, scripted: Scripted, tmp_path: Path
) -> None:
    (cli.project / ".env").write_text(SECRET + "\n")
    read = {"tool_calls": [{"name": "read", "arguments": {"filePath": str(cli.project / ".env")}}]}
    server = scripted([read, {"text": "Noted."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    done = cli("run", "--auto", "--format", "json", "read the env file")  # the read asks; --auto says yes
    assert done.returncode == 0, done.stderr
    assert SECRET in _bodies(server)[1]  # the model got it in this run
    assert SECRET not in done.stdout and secret_placeholder([".env"]) in done.stdout  # the printed events

    stored = [p for p in (tmp_path / "home").rglob("*") if p.is_file()]  # the database, its WAL, tool outputs
    assert stored and not [p for p in stored if SECRET.encode() in p.read_bytes()]
    session_id = json.loads(cli("session", "list", "--json").stdout)[0]["id"]
    exported = cli("session", "export", session_id)
    assert exported.returncode == 0 and SECRET not in exported.stdout
    assert secret_placeholder([".env"]) in exported.stdout

    later = scripted([{"text": "Still noted."}])
    write_config(cli.project, mock_provider_config(later.base_url))
    resumed = cli("run", "-s", session_id, "what was in it?")
    assert resumed.returncode == 0, resumed.stderr
    (body,) = _bodies(later)
    assert SECRET not in body and json.dumps(secret_placeholder([".env"]))[1:-1] in body
