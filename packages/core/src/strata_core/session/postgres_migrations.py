"""The PostgreSQL session database's schema, as numbered migrations recorded in `schema_version`.

The same rules as the SQLite schema (`migrations.py`): a released migration is never edited, each runs in one
transaction with the row that records it (PostgreSQL's DDL is transactional), and a crash mid-migration leaves
the previous version. Several hosts starting at once take a transaction-scoped advisory lock first, so exactly
one applies each migration and the others find it recorded.

Ids compare as bytes (`COLLATE "C"`), as SQLite compares them: session and message ids sort by creation only
under a byte order, never under a locale's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

from strata_core.session.migrations import SchemaTooNewError

if TYPE_CHECKING:
    from psycopg import AsyncConnection

MIGRATION_LOCK_KEY = 0x5354_5241_5441_0001
"""The advisory lock every migrating host takes ("STRATA" and 1): one migrator at a time."""


@frozen
class PostgresMigration:
    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[PostgresMigration, ...] = (
    PostgresMigration(
        version=1,
        description="sessions, messages and parts as JSON documents with indexed keys",
        statements=(
            """
            CREATE TABLE session (
                id TEXT COLLATE "C" PRIMARY KEY,
                project_id TEXT COLLATE "C" NOT NULL,
                parent_id TEXT COLLATE "C",
                time_created BIGINT NOT NULL,
                time_updated BIGINT NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX session_project_updated ON session (project_id, time_updated)",
            "CREATE INDEX session_updated ON session (time_updated)",
            "CREATE INDEX session_parent ON session (parent_id)",
            """
            CREATE TABLE message (
                id TEXT COLLATE "C" PRIMARY KEY,
                session_id TEXT COLLATE "C" NOT NULL,
                time_created BIGINT NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX message_session ON message (session_id, id)",
            # `seq` is given at first insert; an upsert on `id` keeps the row, hence the part's position.
            """
            CREATE TABLE part (
                seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                id TEXT COLLATE "C" NOT NULL UNIQUE,
                session_id TEXT COLLATE "C" NOT NULL,
                message_id TEXT COLLATE "C" NOT NULL,
                data TEXT NOT NULL
            )
            """,
            "CREATE INDEX part_session ON part (session_id, seq)",
            "CREATE INDEX part_message ON part (message_id, seq)",
        ),
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version


async def current_version(conn: AsyncConnection[Any]) -> int:
    cursor = await conn.execute("SELECT to_regclass('schema_version') IS NOT NULL")
    row = await cursor.fetchone()
    if row is None or not row[0]:
        return 0
    cursor = await conn.execute("SELECT coalesce(max(version), 0) FROM schema_version")
    row = await cursor.fetchone()
    return int(row[0]) if row is not None else 0


async def migrate(
    conn: AsyncConnection[Any],
    where: str,
    now_ms: int,
    migrations: tuple[PostgresMigration, ...] = MIGRATIONS,
) -> int:
    """Bring the database up to the newest schema; return the version it is at. `conn` is in autocommit mode."""
    newest = migrations[-1].version
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK_KEY,))
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)"
        )
        found = await current_version(conn)
        if found > newest:
            raise SchemaTooNewError(
                f"{where}: the session database has schema version {found}, but this Strata knows versions up to "
                f"{newest}. Upgrade Strata on this host (every host sharing the database needs the same version)."
            )
        for migration in migrations:
            if migration.version > found:
                async with conn.transaction():  # a savepoint: one migration, whole or not at all
                    for statement in migration.statements:
                        await conn.execute(statement.encode())
                    await conn.execute(
                        "INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)", (migration.version, now_ms)
                    )
        return await current_version(conn)
