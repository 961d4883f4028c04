"""`strata db migrate --to postgresql://...`: this machine's sessions (its SQLite file) copied into a shared one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from strata_cli.errors import CliError

if TYPE_CHECKING:
    from strata_core.session import CopyReport


@click.group(short_help="Manage the session database.")
def db() -> None:
    """The session database: local SQLite by default, or a PostgreSQL database shared by several hosts."""


@db.command(short_help="Copy the local sessions into a PostgreSQL database.")
@click.option("--to", "url", required=True, metavar="URL", help="The PostgreSQL database (postgresql://...).")
@click.option(
    "--from",
    "source",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="The SQLite file to copy (default: this user's strata.db).",
)
def migrate(url: str, source: Path | None) -> None:
    """Copy every session of the local SQLite store into the PostgreSQL database at URL (migrating its schema
    first). Each session is copied whole or not at all; run it again after an interruption and it copies only
    what is missing. The copy is verified: each session's messages and parts are read back and compared."""
    import os

    import anyio

    from strata_core import SqliteSessionStore
    from strata_core.config import StrataPaths
    from strata_core.session import DatabaseUrlError, PostgresSessionStore, checked_database_url, copy_sessions

    try:
        checked_database_url(url, source="--to")
    except DatabaseUrlError as error:
        raise click.BadParameter(str(error).removeprefix("--to: "), param_hint="'--to'") from None
    path = source or StrataPaths.from_env(os.environ).database
    if not path.exists():
        raise CliError(f"There is no local session database at {path}: nothing to copy.")

    def progress(session_id: str) -> None:
        click.echo(f"  {session_id}", err=True)

    async def copy() -> CopyReport:
        async with SqliteSessionStore.open(path) as local, PostgresSessionStore.open(url) as shared:
            return await copy_sessions(local, shared, progress)

    report = anyio.run(copy)
    click.echo(
        f"Copied {report.copied} sessions ({report.already_there} already there) of {report.sessions} from {path}: "
        f"{report.messages} messages, {report.parts} parts."
    )
    if report.newer_there:
        click.echo(
            "Left alone, as the database holds them in a later state (continued there): "
            + ", ".join(report.newer_there)
            + "."
        )
    if report.mismatched:
        raise CliError(
            "These sessions do not read back from the database as they are stored here: "
            + ", ".join(report.mismatched)
            + ". Run the command again; if they still differ, another host may be writing them."
        )
    click.echo("Verified: every session reads back with the same messages and parts.")
