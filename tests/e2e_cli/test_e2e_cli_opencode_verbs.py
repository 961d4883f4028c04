"""OpenCode's everyday verbs work on Strata: `session list --format json`, top-level `export [ID]` and `import`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config

from strata_providers.testing import ScriptedServer


def two_sessions(cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]) -> list[dict[str, Any]]:
    server = scripted([{"text": "one"}, {"text": "two"}])
    write_config(cli.project, mock_provider_config(server.base_url))
    for message in ("first", "second"):
        assert cli("run", message).returncode == 0
    listed: list[dict[str, Any]] = json.loads(cli("session", "list", "--format", "json").stdout)
    return listed


def test_session_list_format_json_has_opencodes_fields_newest_first(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    listed = two_sessions(cli, scripted)
    assert [list(row) for row in listed] == [["id", "title", "updated", "created", "projectId", "directory"]] * 2
    assert listed[0]["updated"] >= listed[1]["updated"]
    newest = json.loads(cli("session", "list", "--format", "json", "-n", "1").stdout)
    assert newest == listed[:1]


def test_export_without_an_id_writes_the_latest_session_and_import_reads_it_back(
    cli: Cli, scripted: Callable[[list[dict[str, Any]]], ScriptedServer]
) -> None:
    latest = two_sessions(cli, scripted)[0]
    exported = cli("export")
    assert exported.returncode == 0
    assert f"Exporting the latest session of this project: {latest['id']}" in exported.stderr
    document = json.loads(exported.stdout)
    assert document["info"]["id"] == latest["id"]
    assert json.loads(cli("export", latest["id"]).stdout) == document
    cli("session", "delete", latest["id"])
    path = cli.project / "export.json"
    path.write_text(exported.stdout)
    imported = cli("import", str(path))
    assert imported.returncode == 0, imported.stderr
    assert latest["id"] in [row["id"] for row in json.loads(cli("session", "list", "--format", "json").stdout)]


def test_export_with_no_session_says_how_to_start_one(cli: Cli) -> None:
    result = cli("export")
    assert result.returncode == 1 and result.stdout == ""
    assert "No sessions yet in this project to export" in result.stderr
