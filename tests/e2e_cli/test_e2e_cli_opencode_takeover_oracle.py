"""Taking over an OpenCode session, with the real OpenCode 1.18.33 (skipped where it is not installed).

A session is recorded by `opencode run` against a ScriptedServer (reasoning, a `read` call and its result,
a text answer). Strata gets it three ways: an `opencode export` file, and OpenCode's own database read with
`--from-opencode`, once with OpenCode idle and once with `opencode serve` running on that database. Each
time `strata run -s ID` continues it, and the request the server receives is compared (the oracle's
compare.py) with the one `opencode run -s ID` sends for the same session: the same roles, tool calls,
results, texts and reasoning. The other way round, a Strata session exported with `strata session export`
is imported by `opencode import` and continued by `opencode run -s`. OpenCode's own continuation and export
of the recorded session are made once per module (the same session each time), not once per test.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import subprocess
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from cli_harness import Cli, mock_provider_config, write_config
from opencode_oracle import OpenCode, compare, history_fields, missing_reason, opencode_env, write_capture

from strata_providers.testing import ScriptedServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.opencode_live,
    pytest.mark.skipif(missing_reason() is not None, reason=missing_reason() or ""),
]

FIRST = "read the notes"
NEXT = "now sum them up"


def recording_script(project: Path) -> list[dict[str, Any]]:
    read = {"name": "read", "arguments": {"filePath": str(project / "notes.txt")}}
    return [
        {"reasoning": "The notes are in notes.txt.", "tool_calls": [read]},
        {"reasoning": "Two items.", "text": "The notes list apples and bread."},
    ]


@attrs.frozen
class Recording:
    """One project, and the OpenCode data dir in which `opencode run` recorded a session there."""

    project: Path
    data: Path
    session_id: str


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    """Recorded once per module (an OpenCode run costs seconds); each test works on a copy of the data dir."""
    base = tmp_path_factory.mktemp("opencode-recording")
    project = base / "work"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "notes.txt").write_text("apples\nbread\n")
    opencode = OpenCode(project, opencode_env(base / "opencode-home", base / "data"))
    with ScriptedServer(recording_script(project)) as server:
        write_config(project, mock_provider_config(server.base_url))
        done = opencode("run", FIRST)
        assert done.returncode == 0, done.stderr
    listed = session_ids(opencode.database, base / "read")
    assert len(listed) == 1, listed
    return Recording(project, base / "data", listed[0])


def session_ids(database: Path, scratch: Path) -> list[str]:
    """The sessions in OpenCode's database, read from a copy (the database and its WAL) so that the recording's
    files stay as OpenCode left them; cheaper than `opencode session list` (an OpenCode start, ~1.5 s of CPU)."""
    scratch.mkdir()
    for path in database.parent.glob(f"{database.name}*"):
        shutil.copy2(path, scratch / path.name)
    with contextlib.closing(sqlite3.connect(scratch / database.name)) as copy:
        return [str(row[0]) for row in copy.execute("SELECT id FROM session")]


@pytest.fixture
def project(recording: Recording) -> Path:
    """Every test of the module works in the recording's project (OpenCode's session belongs to its path)."""
    return recording.project


@pytest.fixture
def opencode(tmp_path: Path, cli: Cli, recording: Recording) -> OpenCode:
    """OpenCode in the same project as `cli`, sharing its XDG data dir (as on one user's machine), which
    starts with a copy of the recording's database."""
    data = Path(cli.env["XDG_DATA_HOME"])
    shutil.copytree(recording.data / "opencode", data / "opencode")
    return OpenCode(cli.project, opencode_env(tmp_path / "opencode-home", data))


@pytest.fixture
def recorded(opencode: OpenCode, recording: Recording) -> str:
    """The id of the session `opencode run` recorded, in this test's copy of OpenCode's database."""
    return recording.session_id


def continue_with(
    tmp_path: Path, name: str, run: Callable[[], Any], project: Path, home: Path
) -> tuple[Path, ScriptedServer]:
    """Run one continuation against a fresh server; the capture dir of what it sent."""
    with ScriptedServer([{"text": "Apples and bread: two items."}]) as server:
        write_config(project, mock_provider_config(server.base_url))
        done = run()
        assert done.returncode == 0, done.stderr
    return write_capture(server, tmp_path / name, project, home), server


def database_files(opencode: OpenCode) -> dict[str, bytes]:
    """The database and its WAL as bytes. The `-shm` file is left out: it is the WAL's shared-memory index,
    which every reader updates (its read marks) and SQLite rebuilds from the WAL; it holds no data."""
    files = [opencode.database, opencode.database.with_name("opencode.db-wal")]
    return {path.name: path.read_bytes() for path in files if path.exists()}


def assert_same_history(theirs: Path, ours: Path) -> None:
    fields = history_fields(compare(theirs, ours))
    assert any(field.endswith("messages.roles") for field in fields), fields
    differing = {field: row for field, row in fields.items() if row[0] == "DIFF"}
    assert differing == {}


@pytest.fixture(scope="module")
def opencode_continued(tmp_path_factory: pytest.TempPathFactory, recording: Recording) -> Path:
    """What OpenCode's own continuation of the recorded session (`opencode run -s ID`) sent, made once per
    module on a copy of the recording's data dir: every test's copy holds the same session, which Strata only
    reads (the idle-database test checks that), so each test's `opencode run -s` would send the same request."""
    base = tmp_path_factory.mktemp("opencode-continued")
    shutil.copytree(recording.data / "opencode", base / "data" / "opencode")
    copy = OpenCode(recording.project, opencode_env(base / "opencode-home", base / "data"))
    home = Path(copy.env["HOME"])
    capture, _ = continue_with(
        base, "opencode", lambda: copy("run", "-s", recording.session_id, NEXT), recording.project, home
    )
    return capture


@pytest.fixture(scope="module")
def opencode_exported(tmp_path_factory: pytest.TempPathFactory, recording: Recording) -> str:
    """`opencode export ID` of the recorded session (made once per module, on a copy of its data dir)."""
    base = tmp_path_factory.mktemp("opencode-exported")
    shutil.copytree(recording.data / "opencode", base / "data" / "opencode")
    done = OpenCode(recording.project, opencode_env(base / "opencode-home", base / "data"))(
        "export", recording.session_id
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def strata_continues(tmp_path: Path, cli: Cli, session_id: str, name: str = "strata") -> Path:
    home = Path(cli.env["HOME"])
    capture, server = continue_with(tmp_path, name, lambda: cli("run", "-s", session_id, NEXT), cli.project, home)
    (request,) = server.main_requests
    assert [m["role"] for m in request.body["messages"]][-1] == "user"
    return capture


def test_an_opencode_export_continues_in_strata_as_in_opencode(
    tmp_path: Path, cli: Cli, recorded: str, opencode_exported: str, opencode_continued: Path
) -> None:
    exported = tmp_path / "export.json"
    exported.write_text(opencode_exported)
    imported = cli("session", "import", str(exported))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"Imported {recorded} (")
    assert_same_history(opencode_continued, strata_continues(tmp_path, cli, recorded))


def test_a_session_from_opencodes_idle_database_continues_as_in_opencode(
    tmp_path: Path, cli: Cli, opencode: OpenCode, recorded: str, opencode_continued: Path
) -> None:
    before = database_files(opencode)
    listed = json.loads(cli("session", "list", "--opencode", "--json").stdout)
    assert [(s["id"], s["imported"]) for s in listed] == [(recorded, False)]
    imported = cli("session", "import", "--from-opencode", "--all")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"Imported {recorded} (") and imported.stdout.endswith(": 3 messages\n")
    assert database_files(opencode) == before, "Strata changed OpenCode's database or its WAL"
    again = cli("session", "import", "--from-opencode", "--all")
    assert again.stdout.strip() == f"Skipped {recorded} (Scripted title): already imported"
    assert_same_history(opencode_continued, strata_continues(tmp_path, cli, recorded))


def test_a_session_from_a_running_opencodes_database_continues_as_in_opencode(
    tmp_path: Path, cli: Cli, opencode: OpenCode, recorded: str, opencode_continued: Path
) -> None:
    with opencode.serving() as url:
        with urllib.request.urlopen(f"{url}/session", timeout=30) as answer:  # the server has the database open
            assert recorded in answer.read().decode()
        imported = cli("session", "import", "--from-opencode", recorded)
        assert imported.returncode == 0, imported.stderr
        # OpenCode still writes while (and after) Strata read: nothing of Strata's holds a lock.
        create = urllib.request.Request(f"{url}/session", data=b"{}", headers={"content-type": "application/json"})
        with urllib.request.urlopen(create, timeout=30) as answer:
            created = json.loads(answer.read())
        assert created["id"].startswith("ses_")
    assert_same_history(opencode_continued, strata_continues(tmp_path, cli, recorded))


def strata_session(cli: Cli) -> str:
    """A session `strata run` recorded (the same reasoning, read call and answer); its id."""
    with ScriptedServer(recording_script(cli.project)) as server:
        write_config(cli.project, mock_provider_config(server.base_url))
        done = cli("run", FIRST)
        assert done.returncode == 0, done.stderr
    (listed,) = json.loads(cli("session", "list", "--json").stdout)
    return str(listed["id"])


def test_a_strata_export_continues_in_opencode_as_in_strata(tmp_path: Path, cli: Cli, opencode: OpenCode) -> None:
    session_id = strata_session(cli)
    exported = tmp_path / "strata-export.json"
    assert cli("session", "export", session_id, "-o", str(exported)).returncode == 0
    imported = opencode("import", str(exported))
    assert imported.returncode == 0 and f"Imported session: {session_id}" in imported.stdout, imported.stderr
    home = Path(opencode.env["HOME"])
    theirs, _ = continue_with(
        tmp_path, "opencode", lambda: opencode("run", "-s", session_id, NEXT), opencode.project, home
    )
    assert_same_history(theirs, strata_continues(tmp_path, cli, session_id))


def test_opencode_to_strata_to_opencode_keeps_the_session(
    tmp_path: Path, cli: Cli, opencode: OpenCode, recorded: str, opencode_exported: str
) -> None:
    original = json.loads(opencode_exported)
    (tmp_path / "a.json").write_text(json.dumps(original))
    assert cli("session", "import", str(tmp_path / "a.json")).returncode == 0
    assert cli("session", "export", recorded, "-o", str(tmp_path / "b.json")).returncode == 0
    fresh = OpenCode(opencode.project, {**opencode.env, "XDG_DATA_HOME": str(tmp_path / "fresh-data")})
    assert fresh("import", str(tmp_path / "b.json")).returncode == 0
    back = json.loads(fresh("export", recorded).stdout)
    assert back["info"] == original["info"]
    assert back["messages"] == original["messages"]


def test_strata_to_opencode_to_strata_keeps_the_session(tmp_path: Path, cli: Cli, opencode: OpenCode) -> None:
    session_id = strata_session(cli)
    original = json.loads(cli("session", "export", session_id).stdout)
    assert {"agent", "model", "cost", "tokens", "title", "time"} <= set(original["info"])
    (tmp_path / "a.json").write_text(json.dumps(original))
    assert opencode("import", str(tmp_path / "a.json")).returncode == 0
    (tmp_path / "b.json").write_text(opencode("export", session_id).stdout)
    assert cli("session", "delete", session_id).returncode == 0
    assert cli("session", "import", str(tmp_path / "b.json")).returncode == 0
    back = json.loads(cli("session", "export", session_id).stdout)
    assert original["info"]["path"] == ""  # started at the worktree's top, as OpenCode records it
    assert back["info"] == original["info"]
    assert back["messages"] == original["messages"]
