"""`strata session list|show|export|import|delete` on sessions made by real runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def _one_session(cli: Cli, scripted: Scripted) -> str:
    (cli.project / "notes.txt").write_text("milk\n")
    read = {"tool_calls": [{"name": "read", "arguments": {"filePath": str(cli.project / "notes.txt")}}]}
    server = scripted([read, {"text": "Milk."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "--title", "Groceries", "what do the notes say?").returncode == 0
    sessions = json.loads(cli("session", "list", "--json").stdout)
    assert len(sessions) == 1
    session_id: str = sessions[0]["id"]
    return session_id


def test_list_and_show_a_session(cli: Cli, scripted: Scripted) -> None:
    session_id = _one_session(cli, scripted)
    listed = cli("session", "list")
    assert listed.returncode == 0 and session_id in listed.stdout and "Groceries" in listed.stdout
    shown = cli("session", "show", session_id)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "# Groceries"
    assert "## user (build · mock/gpt-4o-mock)" in lines and "what do the notes say?" in lines
    assert "→ Read notes.txt · 1 line" in lines and "Milk." in lines


def test_export_delete_and_import_restore_the_session(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    session_id = _one_session(cli, scripted)
    exported = tmp_path / "export.json"
    assert cli("session", "export", session_id, "-o", str(exported)).returncode == 0
    document = json.loads(exported.read_text())
    assert document["info"]["id"] == session_id and len(document["messages"]) == 3
    assert json.loads(cli("session", "export", session_id).stdout) == document
    deleted = cli("session", "delete", session_id)
    assert deleted.returncode == 0 and deleted.stdout.strip() == f"Deleted {session_id} (Groceries)"
    assert json.loads(cli("session", "list", "--json").stdout) == []
    imported = cli("session", "import", str(exported))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == f"Imported {session_id} (Groceries): 3 messages"
    again = cli("session", "import", "-", stdin=exported.read_text())
    assert again.returncode == 1 and "already stored here" in again.stderr
    copy = cli("session", "import", "--new-ids", str(exported))
    assert copy.returncode == 0 and session_id not in copy.stdout


def test_unknown_sessions_and_bad_exports_are_clear_errors(cli: Cli, tmp_path: Path) -> None:
    for args in (["show", "ses_nope"], ["export", "ses_nope"], ["delete", "ses_nope"]):
        done = cli("session", *args)
        assert done.returncode == 1
        assert done.stderr.strip() == "Error: Session not found: ses_nope"
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    done = cli("session", "import", str(broken))
    assert done.returncode == 1
    assert done.stderr.startswith(f"Error: {broken} is not valid JSON (line 1, column 2)")
    assert cli("session", "list").stdout.startswith("No sessions yet")
