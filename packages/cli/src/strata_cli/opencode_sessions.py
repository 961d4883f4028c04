"""What `strata session list --opencode` and `strata session import --from-opencode` do with OpenCode's database.

The database is read (read-only, one snapshot) before Strata's own store is touched; the documents read are
imported one by one through `SessionService.import_session`, the same path as an `opencode export` file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from strata_cli.errors import CliError
from strata_cli.import_conflict import ids_taken, import_conflict

if TYPE_CHECKING:
    from strata_core.project import ProjectInfo
    from strata_core.runtime import Runtime
    from strata_core.session import OpenCodeSession


@frozen
class Listed:
    """An OpenCode session of this project, and whether Strata already has it."""

    session: OpenCodeSession
    imported: bool


def database_path(env: Mapping[str, str]) -> Path:
    from strata_core.session import default_database

    return default_database(env)


def list_project_sessions(path: Path, project: ProjectInfo) -> list[OpenCodeSession]:
    from strata_core.session import opencode_db

    with opencode_db.read_only(path) as conn:
        return opencode_db.project_sessions(conn, str(project.worktree), str(project.directory))


def read_documents(
    path: Path, project: ProjectInfo, ids: Sequence[str], *, every: bool, any_project: bool
) -> list[tuple[OpenCodeSession, dict[str, Any]]]:
    """The export documents of the chosen sessions (all of this project's with `every`), parents first."""
    from strata_core.session import opencode_db

    with opencode_db.read_only(path) as conn:
        here = opencode_db.project_sessions(conn, str(project.worktree), str(project.directory))
        if every:
            chosen = here
        else:
            chosen = [opencode_db.find_session(conn, session_id, path) for session_id in dict.fromkeys(ids)]
            mine = {s.id for s in here}
            elsewhere = [s for s in chosen if s.id not in mine]
            if elsewhere and not any_project:
                raise CliError(_other_project(elsewhere[0]))
        ordered = opencode_db.sessions_in_order(chosen)
        return [(s, opencode_db.export_document(conn, s.id, path)) for s in ordered]


def _other_project(found: OpenCodeSession) -> str:
    return (
        f"OpenCode's session {found.id} ({found.title}) ran in {found.directory}, another project. "
        f"Run the import from that project, or pass --any-project to import it here: "
        f"`strata session import --from-opencode --any-project {found.id}`."
    )


async def import_documents(
    runtime: Runtime, documents: Sequence[tuple[OpenCodeSession, dict[str, Any]]], *, new_ids: bool, every: bool
) -> list[str]:
    """Import each document; the report lines. With `every`, sessions Strata already has are skipped."""
    from strata_core.session import ImportIdsTakenError, SessionExistsError

    lines: list[str] = []
    for found, document in documents:
        if every and not new_ids and await runtime.store.get_session(found.id) is not None:
            lines.append(f"Skipped {found.id} ({found.title}): already imported")
            continue
        try:
            result = await runtime.sessions.import_session(document, new_ids=new_ids)
        except SessionExistsError as error:
            raise CliError(import_conflict(error, f"--from-opencode {found.id}")) from error
        except ImportIdsTakenError as error:
            raise CliError(ids_taken(error, f"--from-opencode {found.id}")) from error
        lines.append(f"Imported {result.info.id} ({result.info.title}): {result.messages} messages")
    return lines
