"""The message for an import whose session (or a message or part of it) is already stored: where it is, and the
command that would work."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from strata_core.session import ImportIdsTakenError, SessionExistsError


def import_conflict(error: SessionExistsError, source: str) -> str:
    """What to say when the session of an import is already stored; `source` is what was imported."""
    existing = error.existing
    copy = f"`strata session import --new-ids {source}`"
    if error.here:
        return (
            f"Session {existing.id} ({existing.title}) is already stored here. Delete it first to restore it "
            f"(`strata session delete {existing.id}`), or import a copy under new ids: {copy}."
        )
    return (
        f"Session {existing.id} ({existing.title}) is already stored, in another project ({existing.directory}). "
        f"Import a copy into this project under new ids: {copy}."
    )


def ids_taken(error: ImportIdsTakenError, source: str) -> str:
    """What to say when an import's message or part id is another session's (or the export's own, twice)."""
    return f"{str(error).removesuffix('.')}: `strata session import --new-ids {source}`."
