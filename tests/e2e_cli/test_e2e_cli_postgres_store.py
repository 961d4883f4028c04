"""The shared store from the command line: `--database URL` / `STRATA_DATABASE_URL` put `run`, the session commands,
`stats` and `--from-opencode` on one PostgreSQL database, and a bad URL or a database that is away is a clear
error, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli_harness import Cli, mock_provider_config, write_config
from opencode_records import RECORDED_SESSION, opencode_database

from strata_providers.testing import ScriptedServer

Scripted = Callable[[list[dict[str, Any]]], ScriptedServer]


def test_runs_and_session_commands_share_the_database_given_by_option_or_variable(
    cli: Cli, scripted: Scripted, postgres_url: str, tmp_path: Path
) -> None:
    server = scripted([{"text": "Stored in PostgreSQL."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    ran = cli("run", "--database", postgres_url, "--title", "Shared", "hello")
    assert ran.returncode == 0, ran.stderr

    shared = {"STRATA_DATABASE_URL": postgres_url}
    (listed,) = json.loads(cli("session", "list", "--json", extra_env=shared).stdout)
    assert listed["title"] == "Shared"
    assert json.loads(cli("session", "list", "--json").stdout) == []  # the local SQLite store has none of it
    exported = cli("session", "export", listed["id"], "--database", postgres_url)
    assert exported.returncode == 0 and "Stored in PostgreSQL." in exported.stdout
    stats = cli("stats", "--json", extra_env=shared)
    assert stats.returncode == 0 and json.loads(stats.stdout)["totalSessions"] == 1, stats.stdout

    deleted = cli("session", "delete", listed["id"], extra_env=shared)
    assert deleted.returncode == 0, deleted.stderr
    document = tmp_path / "export.json"
    document.write_text(exported.stdout)
    imported = cli("session", "import", str(document), "--database", postgres_url)
    assert imported.returncode == 0 and listed["id"] in imported.stdout, imported.stderr

    opencode_database(Path(cli.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db", cli.project)
    from_opencode = cli("session", "import", "--from-opencode", RECORDED_SESSION, extra_env=shared)
    assert from_opencode.returncode == 0, from_opencode.stderr
    ids = {s["id"] for s in json.loads(cli("session", "list", "--json", extra_env=shared).stdout)}
    assert ids == {listed["id"], RECORDED_SESSION}


def test_a_url_that_is_not_postgresql_is_refused_by_the_option_and_the_variable(cli: Cli) -> None:
    by_option = cli("session", "list", "--database", "mysql://db.example/strata")
    assert by_option.returncode == 2 and "Invalid value for '--database'" in by_option.stderr
    assert "is not a PostgreSQL URL" in by_option.stderr and "Traceback" not in by_option.stderr
    by_variable = cli("session", "list", extra_env={"STRATA_DATABASE_URL": "/var/lib/strata.db"})
    assert by_variable.returncode == 1 and "STRATA_DATABASE_URL: '/var/lib/strata.db' is not a PostgreSQL URL" in (
        by_variable.stderr
    )
    assert "unexpected internal error" not in by_variable.stderr


def test_an_unreachable_database_is_named_without_its_password(cli: Cli, postgres_server: Any) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = cli("session", "list", "--database", f"postgresql://strata:hunter2@127.0.0.1:{port}/sessions")
    assert done.returncode == 1
    assert "cannot be reached" in done.stderr and f"127.0.0.1:{port}/sessions" in done.stderr
    assert "hunter2" not in done.stderr and "unexpected internal error" not in done.stderr


def test_db_migrate_copies_the_local_sessions_verifies_them_and_resumes_what_is_missing(
    cli: Cli, scripted: Scripted, postgres_url: str, postgres_server: Any
) -> None:
    server = scripted([{"text": "One."}, {"text": "Two."}])
    write_config(cli.project, mock_provider_config(server.base_url))
    for title in ("First", "Second"):
        assert cli("run", "--title", title, "hello").returncode == 0
    local = {s["id"]: s["title"] for s in json.loads(cli("session", "list", "--json").stdout)}

    copied = cli("db", "migrate", "--to", postgres_url)
    assert copied.returncode == 0, copied.stderr
    assert "Copied 2 sessions (0 already there) of 2" in copied.stdout and "4 messages" in copied.stdout
    assert "Verified" in copied.stdout
    shared = json.loads(cli("session", "list", "--json", "--database", postgres_url).stdout)
    assert {s["id"]: s["title"] for s in shared} == local

    # A copy cut off part way: one session lost its answer in the target. Run again: only it is copied.
    cut = next(iter(local))
    postgres_server.psql(
        f"DELETE FROM message WHERE session_id = '{cut}' AND data::jsonb ->> 'role' = 'assistant'", postgres_url
    )
    again = cli("db", "migrate", "--to", postgres_url)
    assert again.returncode == 0 and "Copied 1 sessions (1 already there) of 2" in again.stdout, again.stdout
    shown = cli("session", "export", cut, "--database", postgres_url)
    assert [m["info"]["role"] for m in json.loads(shown.stdout)["messages"]] == ["user", "assistant"]


def test_db_migrate_refuses_a_url_that_is_not_postgresql(cli: Cli) -> None:
    done = cli("db", "migrate", "--to", "sqlite:///tmp/x.db")
    assert done.returncode == 2 and "is not a PostgreSQL URL" in done.stderr
