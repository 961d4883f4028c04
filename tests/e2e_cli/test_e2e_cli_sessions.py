"""`strata session list|show|export|import|delete` on sessions made by real runs."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from opencode_records import RECORDED_SESSION, opencode_database

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


def _in_another_project(cli: Cli, tmp_path: Path) -> Cli:
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    return Cli(other, cli.env, in_process=cli.in_process)


def test_show_export_and_delete_act_on_this_projects_sessions_unless_any_project(
    cli: Cli, scripted: Scripted, tmp_path: Path
) -> None:
    session_id = _one_session(cli, scripted)
    elsewhere = _in_another_project(cli, tmp_path)
    for command in ("show", "export", "delete"):
        done = elsewhere("session", command, session_id)
        assert done.returncode == 1
        assert done.stderr.strip() == (
            f"Error: Session {session_id} (Groceries) belongs to another project ({cli.project}). "
            "Run the command from there, or pass --any-project."
        )
    assert elsewhere("session", "show", "--any-project", session_id).stdout.startswith("# Groceries")
    assert json.loads(elsewhere("session", "export", "--any-project", session_id).stdout)["info"]["id"] == session_id
    assert elsewhere("session", "delete", "--any-project", session_id).returncode == 0
    assert json.loads(cli("session", "list", "--json").stdout) == []


def test_importing_a_session_stored_in_another_project_says_so_and_names_new_ids(
    cli: Cli, scripted: Scripted, tmp_path: Path
) -> None:
    session_id = _one_session(cli, scripted)
    exported = tmp_path / "export.json"
    assert cli("session", "export", session_id, "-o", str(exported)).returncode == 0
    elsewhere = _in_another_project(cli, tmp_path)
    done = elsewhere("session", "import", str(exported))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"Error: Session {session_id} (Groceries) is already stored, in another project ({cli.project}). "
        f"Import a copy into this project under new ids: `strata session import --new-ids {exported}`."
    )
    copy = elsewhere("session", "import", "--new-ids", str(exported))
    assert copy.returncode == 0, copy.stderr
    assert len(json.loads(elsewhere("session", "list", "--json").stdout)) == 1


def test_export_sanitize_redacts_as_opencode_does(cli: Cli, scripted: Scripted) -> None:
    from strata_core.session.sanitize import sanitized

    session_id = _one_session(cli, scripted)
    plain = json.loads(cli("session", "export", session_id).stdout)
    redacted = cli("session", "export", "--sanitize", session_id)
    assert redacted.returncode == 0
    assert json.loads(redacted.stdout) == sanitized(plain)
    assert "milk" not in redacted.stdout and "Groceries" not in redacted.stdout
    assert str(cli.project) not in redacted.stdout


def test_export_sanitize_also_hides_a_configured_key_a_provider_error_echoed(cli: Cli, scripted: Scripted) -> None:
    key = "sk-configured-9f8e7d6c"
    server = scripted([{"status": 401, "message": f"Incorrect API key provided: {key}"}])
    config = mock_provider_config(server.base_url)
    config["provider"]["mock"]["options"]["apiKey"] = "{env:MOCK_API_KEY}"
    write_config(cli.project, config)
    env = {"MOCK_API_KEY": key}
    assert cli("run", "hello", extra_env=env).returncode != 0
    (session,) = json.loads(cli("session", "list", "--json", extra_env=env).stdout)
    assert key in cli("session", "export", session["id"], extra_env=env).stdout  # the error is kept as it came
    redacted = cli("session", "export", "--sanitize", session["id"], extra_env=env)
    assert redacted.returncode == 0 and "Incorrect API key provided" in redacted.stdout
    assert key not in redacted.stdout


def test_opencode_sessions_are_listed_imported_and_continued(cli: Cli, scripted: Scripted, tmp_path: Path) -> None:
    opencode_database(Path(cli.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db", cli.project)
    listed = cli("session", "list", "--opencode")
    assert listed.returncode == 0, listed.stderr
    assert RECORDED_SESSION in listed.stdout and "Scripted title" in listed.stdout
    elsewhere = _in_another_project(cli, tmp_path)
    assert elsewhere("session", "list", "--opencode").stdout.startswith("OpenCode has no sessions of this project")
    refused = elsewhere("session", "import", "--from-opencode", RECORDED_SESSION)
    assert refused.returncode == 1 and "--any-project" in refused.stderr and str(cli.project) in refused.stderr

    imported = cli("session", "import", "--from-opencode", RECORDED_SESSION)
    assert imported.stdout == f"Imported {RECORDED_SESSION} (Scripted title): 3 messages\n", imported.stderr
    assert json.loads(cli("session", "list", "--opencode", "--json").stdout)[0]["imported"] is True
    again = cli("session", "import", "--from-opencode", RECORDED_SESSION)
    assert again.returncode == 1
    assert f"`strata session import --new-ids --from-opencode {RECORDED_SESSION}`" in again.stderr

    server = scripted([{"text": "Two items."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    assert cli("run", "-s", RECORDED_SESSION, "how many items?").returncode == 0
    (request,) = server.main_requests
    roles = [m["role"] for m in request.body["messages"] if m["role"] != "system"]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]


def test_import_arguments_that_do_not_fit_are_clear_errors(cli: Cli) -> None:
    cases = {
        ("--from-opencode",): "--from-opencode takes session IDs or --all",
        ("--from-opencode", "--all", "ses_x"): "--from-opencode takes session IDs or --all",
        ("--all",): "--all and --any-project go with --from-opencode",
        (): "Give one export file to import",
        ("a.json", "b.json"): "Give one export file to import",
    }
    for args, message in cases.items():
        done = cli("session", "import", *args)
        assert done.returncode == 1 and done.stderr.startswith(f"Error: {message}"), (args, done.stderr)
    missing = cli("session", "import", "--from-opencode", "--all")
    assert missing.returncode == 1 and "No OpenCode database at" in missing.stderr


def test_import_all_from_opencode_keeps_a_subagent_session_under_its_parent(cli: Cli) -> None:
    database = opencode_database(Path(cli.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db", cli.project)
    with sqlite3.connect(database) as writer:  # a child made before its parent sorts first in OpenCode's listing
        row = writer.execute("SELECT * FROM session").fetchone()
        names = [c[1] for c in writer.execute("PRAGMA table_info(session)")]
        child = dict(zip(names, row, strict=True))
        child.update(id="ses_child", parent_id=RECORDED_SESSION, title="Child", time_created=child["time_created"] - 1)
        writer.execute(f"INSERT INTO session VALUES ({', '.join('?' * len(names))})", [child[n] for n in names])
    done = cli("session", "import", "--from-opencode", "--all")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"Imported {RECORDED_SESSION} (Scripted title): 3 messages",
        "Imported ses_child (Child): 0 messages",
    ]
    listed = {s["id"]: s["parentID"] for s in json.loads(cli("session", "list", "--all", "--json").stdout)}
    assert listed == {RECORDED_SESSION: None, "ses_child": RECORDED_SESSION}


def test_importing_a_file_nested_too_deeply_is_one_clear_error(cli: Cli, tmp_path: Path) -> None:
    hostile = tmp_path / "deep.json"
    hostile.write_text('{"info": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    done = cli("session", "import", str(hostile))
    assert done.returncode == 1, done.stderr
    assert "nested too deeply" in done.stderr and "Traceback" not in done.stderr
