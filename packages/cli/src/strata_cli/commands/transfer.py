"""`strata export [ID]` and `strata import FILE`: OpenCode's top-level verbs, over `strata session export|import`.

OpenCode asks which session to export when no ID is given; a pipe cannot answer a question, so Strata takes the
most recently updated session of this project and names it on stderr (stdout stays the JSON document).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from strata_cli import options
from strata_cli.commands import session as sessions

if TYPE_CHECKING:
    from strata_core.runtime import Runtime


@click.command(short_help="Write a session as JSON (the latest one without ID); as `opencode export`.")
@click.argument("session_id", metavar="[ID]", required=False)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE, not stdout.")
@click.option("--sanitize", is_flag=True, help="Redact transcript text, tool input and output, and file data.")
@options.directory
@options.database
@sessions.any_project
@click.pass_context
def export(
    ctx: click.Context,
    session_id: str | None,
    output: Path | None,
    sanitize: bool,
    directory: Path | None,
    any_project: bool,
) -> None:
    """A session as JSON, as `strata session export ID`; without ID, this project's most recently updated one."""
    if session_id is None:
        session_id = _latest(directory)
    ctx.invoke(
        sessions.export,
        session_id=session_id,
        output=output,
        sanitize=sanitize,
        directory=directory,
        any_project=any_project,
    )


@click.command("import", short_help="Store a session from an export file (`-`: stdin); as `opencode import`.")
@click.argument("file", metavar="FILE")
@click.option(
    "--new-ids",
    is_flag=True,
    help="Import a copy under new ids when the session (or a message of it) is already stored.",
)
@options.directory
@options.database
@click.pass_context
def import_file(ctx: click.Context, file: str, new_ids: bool, directory: Path | None) -> None:
    """Store a session from an export file into this project, as `strata session import FILE`.

    OpenCode also takes a share URL; Strata has no share service, so only files (and stdin) are read."""
    ctx.invoke(
        sessions.import_session,
        sources=(file,),
        from_opencode=False,
        every=False,
        new_ids=new_ids,
        any_project=False,
        directory=directory,
    )


def _latest(directory: Path | None) -> str:
    from strata_cli.errors import CliError

    async def load(runtime: Runtime) -> tuple[str, str] | None:
        found = [s for s in await runtime.sessions.list_sessions() if s.parent_id is None]
        return (found[0].id, found[0].title) if found else None

    latest = sessions.with_sessions(directory, load)
    if latest is None:
        raise CliError("No sessions yet in this project to export. Start one with `strata run MESSAGE` or `strata`.")
    click.echo(f"Exporting the latest session of this project: {latest[0]} ({latest[1]})", err=True)
    return latest[0]
