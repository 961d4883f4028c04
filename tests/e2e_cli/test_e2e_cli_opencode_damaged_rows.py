"""A damaged row in OpenCode's database (data that is not a JSON object, a time that is text) costs that record,
skipped with a warning naming it; `--from-opencode` and `session list --opencode` carry on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from cli_harness import Cli
from opencode_records import RECORDED_SESSION, opencode_database


def _damaged(cli: Cli, statement: str) -> tuple[str, str]:
    """OpenCode's recorded database with `statement` applied; the id of the row it damaged (the first)."""
    path = opencode_database(Path(cli.env["XDG_DATA_HOME"]) / "opencode" / "opencode.db", cli.project)
    with sqlite3.connect(path) as conn:
        table = statement.split()[1]
        (record_id,) = conn.execute(f"SELECT id FROM {table} WHERE rowid = 1").fetchone()
        conn.execute(statement)
    return table, record_id


@pytest.mark.parametrize(
    ("statement", "messages"),
    [
        ("UPDATE message SET data = 'not json' WHERE rowid = 1", 2),
        ("UPDATE part SET data = '[1, 2]' WHERE rowid = 1", 3),
    ],
    ids=["message-not-json", "part-a-list"],
)
def test_a_record_whose_data_is_not_a_json_object_is_skipped_naming_it(cli: Cli, statement: str, messages: int) -> None:
    _, record_id = _damaged(cli, statement)
    imported = cli("session", "import", "--from-opencode", "--all")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout == f"Imported {RECORDED_SESSION} (Scripted title): {messages} messages\n"
    assert f"record={record_id} reason=its data is not a JSON object" in imported.stderr


def test_a_session_whose_time_is_text_is_left_out_of_the_listing_with_a_warning(cli: Cli) -> None:
    _damaged(cli, "UPDATE session SET time_updated = 'soon'")
    listed = cli("session", "list", "--opencode")
    assert listed.returncode == 0, listed.stderr
    assert f"session_id={RECORDED_SESSION} reason=a damaged row: time_updated is 'soon'" in listed.stderr
    assert listed.stdout.startswith("OpenCode has no sessions of this project")
    refused = cli("session", "import", "--from-opencode", RECORDED_SESSION)
    assert refused.returncode == 1
    assert f"OpenCode's session {RECORDED_SESSION}" in refused.stderr and "has a damaged row" in refused.stderr
