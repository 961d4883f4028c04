"""When the session database itself fails: a full disk, a read-only file, an I/O error, a lock held too long.

SQLite reports these as `sqlite3.OperationalError` (or `DatabaseError`) with a code; `storage_error` turns
them into one `StorageError` naming the database file and what to do about it, so a full disk reads as a
full disk and never as a bug. What the store was writing when it failed was one transaction, rolled back
whole, so the sessions stored before stay as they were. Codes that are not about the storage (a malformed
statement, a constraint) stay what they are: those are defects.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from strata_core.errors import StrataError

LOW_SPACE_BYTES = 1 << 20
"""Free space under which an I/O error is taken for a full disk: SQLite reports some writes that ran out of
room (growing the WAL's shared-memory file, say) as `disk I/O error` rather than `database or disk is full`."""


class StorageError(StrataError):
    """The session database could not be read or written; nothing of the failed operation was kept."""

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class StorageFullError(StorageError):
    """The filesystem (or quota) that holds the database has no room left."""


class StorageReadOnlyError(StorageError):
    """The database, or the directory it lives in, cannot be written."""


class StorageLockedError(StorageError):
    """Another process held the database for longer than the store waits."""


class StorageDamagedError(StorageError):
    """The file is damaged, or is not a SQLite database."""


_FULL = (
    StorageFullError,
    "The session database {path} could not be written: the filesystem that holds it is full ({detail}). "
    "Nothing of the failed write was kept, and the sessions stored before are intact. Free some space "
    "there (the database and its -wal file are in {folder}), or keep the data directory on a "
    "filesystem with room (STRATA_DATA_DIR), and try again.",
)
_BY_CODE: dict[int, tuple[type[StorageError], str]] = {
    sqlite3.SQLITE_FULL: _FULL,
    **dict.fromkeys(
        (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN),
        (
            StorageReadOnlyError,
            "The session database {path} cannot be opened for writing ({detail}). Strata writes the file and "
            "its -wal and -shm files beside it, so {folder} must be writable by this user: fix the "
            "permissions (or the read-only mount), or keep the data directory elsewhere (STRATA_DATA_DIR).",
        ),
    ),
    **dict.fromkeys(
        (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED),
        (
            StorageLockedError,
            "The session database {path} stayed locked by another process for more than "
            "{busy_seconds:g} s ({detail}). Another Strata process is probably writing a long "
            "transaction; let it finish and try again.",
        ),
    ),
    **dict.fromkeys(
        (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB),
        (
            StorageDamagedError,
            "The session database {path} is damaged or is not a SQLite database ({detail}). Move it (and its "
            "-wal and -shm files) aside, and Strata starts a new, empty one; the old file may still be "
            "readable with the sqlite3 tool's `.recover`.",
        ),
    ),
    sqlite3.SQLITE_IOERR: (
        StorageError,
        "Reading or writing the session database {path} failed: the filesystem reported an error "
        "({detail}). Nothing of the failed operation was kept; check the disk or mount that holds "
        "{folder} and try again.",
    ),
}
"""Each storage failure's class and message by SQLite's primary result code; any other code is a defect."""


def storage_error(error: sqlite3.Error, path: Path, *, busy_timeout_ms: int) -> StorageError | None:
    """The `StorageError` that `error` from the database at `path` means, or None if it is not about storage."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF  # the primary code of an extended one
    out_of_room = code == sqlite3.SQLITE_IOERR and _free_bytes(path) < LOW_SPACE_BYTES
    kind = _FULL if out_of_room else _BY_CODE.get(code)
    if kind is None:
        return None
    cls, message = kind
    text = message.format(path=path, detail=error, folder=path.parent, busy_seconds=busy_timeout_ms / 1000)
    return cls(text, path=path)


def _free_bytes(path: Path) -> int:
    for folder in path.parents:  # the database's folder, or the nearest that exists
        try:
            stats = os.statvfs(folder)
        except OSError:
            continue
        return stats.f_bavail * stats.f_frsize
    return LOW_SPACE_BYTES  # unknown: not evidence of a full disk
