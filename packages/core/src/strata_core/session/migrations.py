"""The session database's schema, as numbered migrations applied in order and recorded in `schema_version`.

A migration is never edited once released: a schema change is a new, higher-numbered entry. Each migration
runs in its own transaction together with the row that records it, so a crash mid-migration leaves the
database at the previous version, and the next open simply tries again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from attrs import frozen

from strata_core.clock import Clock, SystemClock
from strata_core.errors import StrataError
from strata_core.session import id_rewrite


@frozen
class Migration:
    version: int
    description: str
    statements: tuple[str, ...]
    rewrite: Callable[[sqlite3.Connection], None] | None = None
    """Python run after the statements, in the same transaction (rows the SQL alone cannot rewrite)."""
    backup: Callable[[sqlite3.Connection], None] | None = None
    """Run before the transaction when `needs_backup` says so: a copy of the database to go back to."""
    needs_backup: Callable[[sqlite3.Connection], bool] | None = None


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        version=1,
        description="sessions, messages and parts as JSON documents with indexed keys",
        statements=(
            """
            CREATE TABLE session (
                id TEXT PRIMARY KEY,
                project_id TEXT NOT NULL,
                parent_id TEXT,
                time_created INTEGER NOT NULL,
                time_updated INTEGER NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX session_project_updated ON session (project_id, time_updated)",
            "CREATE INDEX session_updated ON session (time_updated)",
            "CREATE INDEX session_parent ON session (parent_id)",
            """
            CREATE TABLE message (
                id TEXT PRIMARY KEY,
                session_id TEXT NOT NULL,
                time_created INTEGER NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX message_session ON message (session_id, id)",
            # `seq` is an alias of the rowid, so it survives VACUUM (a plain rowid may be renumbered) and gives
            # parts their insertion order; an upsert on `id` keeps the row, hence the position.
            """
            CREATE TABLE part (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                session_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX part_session ON part (session_id, seq)",
            "CREATE INDEX part_message ON part (message_id, seq)",
        ),
    ),
    Migration(
        version=id_rewrite.VERSION,
        description="ids in OpenCode's 12-hex-digit form; the database is first copied to strata.db.bak-2",
        statements=(),
        rewrite=id_rewrite.rewrite_ids,
        backup=id_rewrite.back_up,
        needs_backup=id_rewrite.needs_rewrite,
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version


class SchemaTooNewError(StrataError, RuntimeError):
    """The database was written by a newer Strata whose schema this one does not know."""


def current_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if exists is None:
        return 0
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(
    conn: sqlite3.Connection,
    where: str,
    migrations: tuple[Migration, ...] = MIGRATIONS,
    clock: Clock | None = None,
) -> int:
    """Bring the database up to the newest schema; return the version it is at.

    `conn` must be in autocommit mode (`isolation_level=None`): transactions here are explicit. `where` names
    the database in error messages; `clock` stamps each migration's `applied_at` (default: the machine's).
    """
    clock = clock or SystemClock()
    conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)")
    newest = migrations[-1].version
    found = current_version(conn)
    if found > newest:
        raise SchemaTooNewError(
            f"{where}: the session database has schema version {found}, but this Strata knows versions up to "
            f"{newest}. Upgrade Strata, or point it at another data directory (STRATA_DATA_DIR)."
        )
    for migration in migrations:
        if migration.version > found:
            _apply(conn, migration, clock)
    return current_version(conn)


def _apply(conn: sqlite3.Connection, migration: Migration, clock: Clock) -> None:
    if migration.backup is not None and (migration.needs_backup is None or migration.needs_backup(conn)):
        migration.backup(conn)
    # IMMEDIATE takes the write lock first, so two processes opening a fresh database at once cannot both
    # apply the same migration: the second waits (busy timeout), then sees the version already recorded.
    conn.execute("BEGIN IMMEDIATE")
    try:
        if current_version(conn) >= migration.version:
            conn.execute("ROLLBACK")
            return
        for statement in migration.statements:
            conn.execute(statement)
        if migration.rewrite is not None:
            migration.rewrite(conn)
        conn.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
            (migration.version, clock.now_ms()),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
