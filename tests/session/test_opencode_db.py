"""Reading OpenCode's own database: the document `opencode export` prints, matched by directory, read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from opencode_records import RECORDED_SESSION, opencode_database, opencode_export

from strata_core.session import opencode_db
from strata_core.session.opencode_db import OpenCodeDatabaseError, OpenCodeSessionNotFoundError
from strata_core.session.sqlite_store import SqliteSessionStore

pytestmark = pytest.mark.anyio


@pytest.fixture
def work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


@pytest.fixture
def database(tmp_path: Path, work: Path) -> Path:
    return opencode_database(tmp_path / "data" / "opencode" / "opencode.db", work)


def test_a_session_reads_as_the_document_opencode_export_printed(database: Path, work: Path) -> None:
    with opencode_db.read_only(database) as conn:
        document = opencode_db.export_document(conn, RECORDED_SESSION, database)
    assert document == opencode_export(work)


def test_sessions_are_matched_to_the_project_by_directory(database: Path, work: Path) -> None:
    with sqlite3.connect(database) as writer:  # more sessions, as OpenCode would have them
        row = writer.execute("SELECT * FROM session").fetchone()
        for session_id, directory in (("ses_sub", work / "pkg"), ("ses_other", work.parent / "other")):
            writer.execute(
                f"INSERT INTO session VALUES ({', '.join('?' * len(row))})",
                (session_id, *row[1:5], str(directory), *row[6:]),
            )
    with opencode_db.read_only(database) as conn:
        in_repo = opencode_db.project_sessions(conn, str(work), str(work))
        outside_git = opencode_db.project_sessions(conn, "/", str(work))
        elsewhere = opencode_db.find_session(conn, "ses_other", database)
    assert {s.id for s in in_repo} == {RECORDED_SESSION, "ses_sub"}
    assert [s.id for s in outside_git] == [RECORDED_SESSION]
    assert (outside_git[0].title, outside_git[0].messages) == ("Scripted title", 3)
    assert elsewhere.directory == str(work.parent / "other")


def test_commits_still_in_the_wal_are_read_and_the_database_file_is_not_written(database: Path) -> None:
    # OpenCode keeps its writer open and rarely checkpoints: recent commits live only in opencode.db-wal.
    writer = sqlite3.connect(database, isolation_level=None)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("UPDATE session SET title = 'Renamed in the WAL'")
        before = database.read_bytes()
        with opencode_db.read_only(database) as conn:
            found = opencode_db.find_session(conn, RECORDED_SESSION, database)
        immutable = sqlite3.connect(f"file:{database}?immutable=1", uri=True)
        (stale,) = immutable.execute("SELECT title FROM session").fetchone()
        immutable.close()
        assert database.read_bytes() == before
    finally:
        writer.close()
    assert found.title == "Renamed in the WAL"
    assert stale == "Scripted title"  # why the reader does not open the file `immutable=1`


def test_opencode_writes_while_strata_reads(database: Path) -> None:
    writer = sqlite3.connect(database, isolation_level=None, timeout=0)  # no waiting: a lock would fail at once
    try:
        with opencode_db.read_only(database) as conn:
            before = opencode_db.export_document(conn, RECORDED_SESSION, database)
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("UPDATE session SET title = 'Written meanwhile'")
            writer.execute("COMMIT")
            during = opencode_db.export_document(conn, RECORDED_SESSION, database)  # one snapshot per read
        with opencode_db.read_only(database) as conn:
            after = opencode_db.export_document(conn, RECORDED_SESSION, database)
    finally:
        writer.close()
    assert before["info"]["title"] == during["info"]["title"] == "Scripted title"
    assert after["info"]["title"] == "Written meanwhile"


def test_nothing_can_be_written_through_the_reader(database: Path) -> None:
    with opencode_db.read_only(database) as conn, pytest.raises(sqlite3.OperationalError):
        conn.execute("DELETE FROM part")


def test_a_missing_database_says_where_it_was_looked_for(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "opencode.db"
    with pytest.raises(OpenCodeDatabaseError, match=r"No OpenCode database at .*nowhere/opencode\.db"):
        opencode_db.read_only(missing).__enter__()
    assert not missing.parent.exists()


async def test_a_database_of_another_layout_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "strata.db"
    async with SqliteSessionStore.open(path):
        pass
    with pytest.raises(OpenCodeDatabaseError, match="table `project` lacks everything"):
        opencode_db.read_only(path).__enter__()


def test_an_unknown_session_is_named(database: Path) -> None:
    with opencode_db.read_only(database) as conn, pytest.raises(OpenCodeSessionNotFoundError, match="ses_nope"):
        opencode_db.export_document(conn, "ses_nope", database)


def test_the_default_database_follows_xdg_data_home(tmp_path: Path) -> None:
    assert opencode_db.default_database({"XDG_DATA_HOME": "/d"}) == Path("/d/opencode/opencode.db")
    assert opencode_db.default_database({"HOME": "/h"}) == Path("/h/.local/share/opencode/opencode.db")


def _listed(session_id: str, parent_id: str | None) -> opencode_db.OpenCodeSession:
    return opencode_db.OpenCodeSession(session_id, "t", "/w", "/w", parent_id, 1, 1, 0)


def test_parents_come_before_their_children_whatever_the_listing_order() -> None:
    found = [_listed("ses_child", "ses_parent"), _listed("ses_alone", None), _listed("ses_parent", None)]
    found.append(_listed("ses_grandchild", "ses_child"))
    found.append(_listed("ses_orphan", "ses_gone"))
    ordered = [s.id for s in opencode_db.sessions_in_order(found)]
    assert sorted(ordered) == sorted(s.id for s in found)
    assert ordered.index("ses_parent") < ordered.index("ses_child") < ordered.index("ses_grandchild")
