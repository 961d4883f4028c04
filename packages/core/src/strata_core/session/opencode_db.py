"""OpenCode's own session database, read-only: what `strata session import --from-opencode` takes over.

OpenCode (1.2 and later; the layout here is 1.18.33's) keeps its sessions in `$XDG_DATA_HOME/opencode/opencode.db`,
SQLite in WAL mode: tables `project` (`worktree`), `session` (one column per field), `message` and `part`
(a JSON `data` column holding the record without its ids). This module turns those rows into exactly the
document `opencode export ID` prints, so importing goes through the one export reader
(`strata_core.session.export`) and nothing is converted twice.

Read-only, and harmless to a running OpenCode:
- the file is opened `mode=ro` (and `query_only`): SQLite never writes it, and a WAL reader takes no lock a
  writer waits for, so OpenCode keeps writing while Strata reads;
- `immutable=1` would be wrong: OpenCode leaves its recent commits in `opencode.db-wal` (often the whole
  history: it rarely checkpoints), which an immutable open ignores, and it would read pages mid-write;
- all of one call's queries run in one read transaction, so a session is read at one instant even while
  OpenCode appends to it.
When OpenCode is not running and left no `-wal`/`-shm` files, SQLite creates them empty (the same files
OpenCode makes when it opens the database); the database file itself is never touched.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from attrs import frozen

from strata_core import json_text
from strata_core.errors import StrataError
from strata_core.logging import get_logger

log = get_logger(__name__)

BUSY_TIMEOUT_S = 5.0


class OpenCodeDatabaseError(StrataError, RuntimeError):
    """OpenCode's database is missing, unreadable, or not in a layout this reader knows."""


class OpenCodeSessionNotFoundError(StrataError, LookupError):
    def __init__(self, session_id: str, path: Path) -> None:
        super().__init__(f"OpenCode has no session {session_id} (in {path})")
        self.session_id = session_id


@frozen
class OpenCodeSession:
    """One session as OpenCode lists it: enough to choose what to import."""

    id: str
    title: str
    directory: str
    worktree: str
    parent_id: str | None
    created: int
    updated: int
    messages: int


def default_database(env: Mapping[str, str]) -> Path:
    """`$XDG_DATA_HOME/opencode/opencode.db`, by default `~/.local/share/opencode/opencode.db`."""
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(data) / "opencode" / "opencode.db"


@contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to OpenCode's database, inside one read transaction (one snapshot)."""
    if not path.is_file():
        raise OpenCodeDatabaseError(
            f"No OpenCode database at {path}. OpenCode keeps it in $XDG_DATA_HOME/opencode/opencode.db "
            "(~/.local/share/opencode/opencode.db); run OpenCode once, or set XDG_DATA_HOME to where it is."
        )
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as error:
        raise OpenCodeDatabaseError(f"Cannot open OpenCode's database {path} read-only: {error}") from error
    try:
        conn.execute("PRAGMA query_only=1")
        conn.execute("BEGIN")
        _check_layout(conn, path)
        yield conn
    except sqlite3.Error as error:
        raise OpenCodeDatabaseError(f"Cannot read OpenCode's database {path}: {error}") from error
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()


_NEEDED = {
    "project": {"id", "worktree"},
    "session": {"id", "project_id", "slug", "directory", "title", "version", "time_created", "time_updated"},
    "message": {"id", "session_id", "time_created", "data"},
    "part": {"id", "message_id", "session_id", "data"},
}


def _check_layout(conn: sqlite3.Connection, path: Path) -> None:
    for table, columns in _NEEDED.items():
        found = {row[1] for row in conn.execute(f"PRAGMA table_info(`{table}`)")}
        missing = sorted(columns - found)
        if missing:
            raise OpenCodeDatabaseError(
                f"{path} is not an OpenCode database this Strata can read: table `{table}` lacks "
                f"{', '.join(missing) if found else 'everything (no such table)'} (the layout read is OpenCode 1.18's)"
            )


_LISTING = """
    SELECT s.id, s.title, s.directory, coalesce(p.worktree, ''), s.parent_id, s.time_created, s.time_updated,
           (SELECT count(*) FROM message m WHERE m.session_id = s.id)
    FROM session s LEFT JOIN project p ON p.id = s.project_id
"""


def project_sessions(conn: sqlite3.Connection, worktree: str, directory: str) -> list[OpenCodeSession]:
    """OpenCode's sessions of this project, oldest first (parents before their children).

    A project is matched by directory, since OpenCode's project ids are not Strata's: a session belongs
    here if it ran in the worktree or below it, or outside a repository (worktree `/`) in this directory.
    OpenCode's own `project.worktree` is no guide: its `global` project (no git, or no commit yet) keeps
    the directory it was last used in.
    """
    rows = conn.execute(f"{_LISTING} ORDER BY s.time_created, s.id DESC").fetchall()
    found = [s for row in rows if (s := _listed(row)) is not None]
    return [s for s in found if _belongs(s.directory, worktree, directory)]


def _listed(row: Sequence[Any]) -> OpenCodeSession | None:
    """A listing row as a session, or None (with a notice naming it) if a column holds what OpenCode never
    writes there: a damaged row costs that session, not the listing."""
    session = OpenCodeSession(*row)
    expected: dict[str, type] = {"title": str, "directory": str, "time_created": int, "time_updated": int}
    values: dict[str, object] = {"title": session.title, "directory": session.directory}
    values |= {"time_created": session.created, "time_updated": session.updated}
    damaged = [f"{name} is {values[name]!r}" for name, kind in expected.items() if type(values[name]) is not kind]
    if not damaged:
        return session
    log.notice("session.opencode.skipped", session_id=str(row[0]), reason=f"a damaged row: {', '.join(damaged)}")
    return None


def _belongs(session_directory: str, worktree: str, directory: str) -> bool:
    if worktree == "/":
        return session_directory == directory
    return session_directory == worktree or session_directory.startswith(worktree.rstrip("/") + "/")


def find_session(conn: sqlite3.Connection, session_id: str, path: Path) -> OpenCodeSession:
    row = conn.execute(f"{_LISTING} WHERE s.id = ?", (session_id,)).fetchone()
    if row is None:
        raise OpenCodeSessionNotFoundError(session_id, path)
    found = _listed(row)
    if found is None:
        raise OpenCodeDatabaseError(f"OpenCode's session {session_id} (in {path}) has a damaged row; not imported")
    return found


def export_document(conn: sqlite3.Connection, session_id: str, path: Path) -> dict[str, Any]:
    """The session as `opencode export ID` prints it: `{info, messages: [{info, parts}]}`."""
    conn.row_factory = sqlite3.Row
    try:
        row = conn.execute("SELECT * FROM session WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise OpenCodeSessionNotFoundError(session_id, path)
        messages = conn.execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session_id,)
        ).fetchall()
        infos = {m["id"]: data for m in messages if (data := _record(m["data"], session_id, m["id"])) is not None}
        parts: dict[str, list[dict[str, Any]]] = {message_id: [] for message_id in infos}
        for part in conn.execute(
            "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id", (session_id,)
        ):
            bucket = parts.get(part["message_id"])
            data = _record(part["data"], session_id, part["id"]) if bucket is not None else None
            if bucket is not None and data is not None:
                bucket.append({**data, "id": part["id"], "sessionID": session_id, "messageID": part["message_id"]})
    finally:
        conn.row_factory = None
    return {
        "info": session_info(dict(row)),
        "messages": [
            {"info": {**data, "id": message_id, "sessionID": session_id}, "parts": parts[message_id]}
            for message_id, data in infos.items()
        ],
    }


def _record(text: Any, session_id: str, record_id: str) -> dict[str, Any] | None:
    """A message's or part's `data` column as the JSON object OpenCode writes there, or None (with a notice
    naming the record, as the export reader names a part it cannot store) if the row is damaged."""
    data = _json(text)
    if isinstance(data, Mapping):
        return dict(data)
    log.notice(
        "session.opencode.skipped", session_id=session_id, record=record_id, reason="its data is not a JSON object"
    )
    return None


def session_info(row: Mapping[str, Any]) -> dict[str, Any]:
    """A `session` row as OpenCode's `Session.Info` (its `fromRow`): absent values are left out."""
    summary = None
    if any(row.get(k) is not None for k in ("summary_additions", "summary_deletions", "summary_files")):
        summary = {
            "additions": row.get("summary_additions") or 0,
            "deletions": row.get("summary_deletions") or 0,
            "files": row.get("summary_files") or 0,
            "diffs": _json(row.get("summary_diffs")),
        }
    revert = _json(row.get("revert"))
    model = _json(row.get("model"))
    info = {
        "id": row["id"],
        "slug": row["slug"],
        "projectID": row["project_id"],
        "workspaceID": row.get("workspace_id"),
        "directory": row["directory"],
        "path": row.get("path"),
        "parentID": row.get("parent_id"),
        "title": row["title"],
        "agent": row.get("agent"),
        "model": _present(
            {"id": model.get("id"), "providerID": model.get("providerID"), "variant": model.get("variant")}
        )
        if isinstance(model, Mapping)
        else None,
        "version": row["version"],
        "summary": _present(summary) if summary else None,
        "cost": row.get("cost", 0),
        "tokens": {
            "input": row.get("tokens_input", 0),
            "output": row.get("tokens_output", 0),
            "reasoning": row.get("tokens_reasoning", 0),
            "cache": {"read": row.get("tokens_cache_read", 0), "write": row.get("tokens_cache_write", 0)},
        },
        "share": {"url": row["share_url"]} if row.get("share_url") else None,
        "metadata": _json(row.get("metadata")),
        "revert": _present(dict(revert)) if isinstance(revert, Mapping) else None,
        "permission": _json(row.get("permission")),
        "time": _present(
            {
                "created": row["time_created"],
                "updated": row["time_updated"],
                "compacting": row.get("time_compacting"),
                "archived": row.get("time_archived"),
            }
        ),
    }
    return _present(info)


def _present(record: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if value is not None}


def _json(text: Any) -> Any:
    if text is None:
        return None
    try:
        return json_text.loads(text)  # OpenCode's JSON.stringify escapes a lone surrogate: U+FFFD here
    except (TypeError, ValueError):
        return None


def sessions_in_order(found: Sequence[OpenCodeSession]) -> list[OpenCodeSession]:
    """Parents before children, otherwise as given (imports keep a child's link only if its parent is there)."""
    ids = {s.id for s in found}
    done: set[str] = set()
    ordered: list[OpenCodeSession] = []
    pending = list(found)
    while pending:
        later = [s for s in pending if s.parent_id in ids and s.parent_id not in done]
        ready = [s for s in pending if s not in later] or later
        ordered.extend(ready)
        done.update(s.id for s in ready)
        pending = [s for s in pending if s.id not in done]
    return ordered
