"""Sessions: the store protocol, the SQLite, PostgreSQL and in-memory stores, the service, export and import.

What other packages use is re-exported here; each name loads with its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strata_core._exports import lazy_exports

if TYPE_CHECKING:
    from strata_core.session.database_url import (
        DatabaseUnavailableError,
        DatabaseUrlError,
        checked_database_url,
        configured_database_url,
    )
    from strata_core.session.export import message_data, parse_export_text, part_data, session_data
    from strata_core.session.lease import SessionBusyError
    from strata_core.session.opencode_db import OpenCodeSession, default_database
    from strata_core.session.postgres_events import NotifyChannel, fits_one_notification
    from strata_core.session.postgres_store import PostgresSessionStore
    from strata_core.session.record_ids import ImportIdsTakenError
    from strata_core.session.revert import RevertConflictError
    from strata_core.session.sanitize import sanitized
    from strata_core.session.service import MessageNotFoundError, SessionExistsError
    from strata_core.session.stats import Bucket, Stats, usage_stats
    from strata_core.session.storage_errors import (
        StorageDamagedError,
        StorageError,
        StorageFullError,
        StorageLockedError,
        StorageReadOnlyError,
    )
    from strata_core.session.store import RecordOwnerError, SessionNotFoundError, SessionStore, SharedStore
    from strata_core.session.store_copy import CopyReport, copy_sessions
    from strata_core.session.usage import UsageTotals, usage_of

__all__ = [
    "Bucket",
    "CopyReport",
    "DatabaseUnavailableError",
    "DatabaseUrlError",
    "ImportIdsTakenError",
    "MessageNotFoundError",
    "NotifyChannel",
    "OpenCodeSession",
    "PostgresSessionStore",
    "RecordOwnerError",
    "RevertConflictError",
    "SessionBusyError",
    "SessionExistsError",
    "SessionNotFoundError",
    "SessionStore",
    "SharedStore",
    "Stats",
    "StorageDamagedError",
    "StorageError",
    "StorageFullError",
    "StorageLockedError",
    "StorageReadOnlyError",
    "UsageTotals",
    "checked_database_url",
    "configured_database_url",
    "copy_sessions",
    "default_database",
    "fits_one_notification",
    "message_data",
    "parse_export_text",
    "part_data",
    "sanitized",
    "session_data",
    "usage_of",
    "usage_stats",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Bucket": "strata_core.session.stats",
        "CopyReport": "strata_core.session.store_copy",
        "DatabaseUnavailableError": "strata_core.session.database_url",
        "DatabaseUrlError": "strata_core.session.database_url",
        "ImportIdsTakenError": "strata_core.session.record_ids",
        "MessageNotFoundError": "strata_core.session.service",
        "NotifyChannel": "strata_core.session.postgres_events",
        "OpenCodeSession": "strata_core.session.opencode_db",
        "PostgresSessionStore": "strata_core.session.postgres_store",
        "RecordOwnerError": "strata_core.session.store",
        "RevertConflictError": "strata_core.session.revert",
        "SessionBusyError": "strata_core.session.lease",
        "SessionExistsError": "strata_core.session.service",
        "SessionNotFoundError": "strata_core.session.store",
        "SessionStore": "strata_core.session.store",
        "SharedStore": "strata_core.session.store",
        "Stats": "strata_core.session.stats",
        "StorageDamagedError": "strata_core.session.storage_errors",
        "StorageError": "strata_core.session.storage_errors",
        "StorageFullError": "strata_core.session.storage_errors",
        "StorageLockedError": "strata_core.session.storage_errors",
        "StorageReadOnlyError": "strata_core.session.storage_errors",
        "UsageTotals": "strata_core.session.usage",
        "checked_database_url": "strata_core.session.database_url",
        "configured_database_url": "strata_core.session.database_url",
        "copy_sessions": "strata_core.session.store_copy",
        "default_database": "strata_core.session.opencode_db",
        "fits_one_notification": "strata_core.session.postgres_events",
        "message_data": "strata_core.session.export",
        "parse_export_text": "strata_core.session.export",
        "part_data": "strata_core.session.export",
        "sanitized": "strata_core.session.sanitize",
        "session_data": "strata_core.session.export",
        "usage_of": "strata_core.session.usage",
        "usage_stats": "strata_core.session.stats",
    },
)
