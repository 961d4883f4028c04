"""`strata session list|show|export|import|delete` (and `diff|revert|unrevert`, `session_changes.py`): the stored
sessions of this project."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from strata_cli import options
from strata_cli.output import echo_json, echo_table

if TYPE_CHECKING:
    from strata_core.runtime import Runtime
    from strata_core.session_info import SessionInfo

T = TypeVar("T")


def with_sessions(directory: Path | None, action: Callable[[Runtime], Awaitable[T]]) -> T:
    """Open the runtime (store included) for this project, run `action`, close everything."""
    import anyio

    from strata_cli.app import build_container, start_runtime

    container = build_container(options.resolve_directory(directory))

    async def main() -> T:
        async with start_runtime(container, mcp=False) as runtime:  # no turn, no servers
            return await action(runtime)

    return anyio.run(main)


any_project = click.option(
    "--any-project", is_flag=True, help="Act on the session even if it belongs to another project."
)


async def _session_here(runtime: Runtime, session_id: str, any_project: bool) -> SessionInfo:
    """The session, if it is this project's (or `any_project`); else an error naming where it is."""
    from strata_cli.errors import CliError

    info = await runtime.sessions.get(session_id)
    if not any_project and info.project_id != runtime.project.id:
        raise CliError(
            f"Session {session_id} ({info.title}) belongs to another project ({info.directory}). "
            f"Run the command from there, or pass --any-project."
        )
    return info


def _when(ms: int) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


@click.group()
def session() -> None:
    """Stored sessions of this project."""


@session.command("list")
@options.directory
@options.database
@options.json_output
@click.option("--all", "include_children", is_flag=True, help="Include subagent (child) sessions.")
@click.option(
    "--opencode", is_flag=True, help="List OpenCode's sessions of this project (what --from-opencode imports)."
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    help="As OpenCode's `session list --format`: json prints its fields (id, title, updated, created, projectId, "
    "directory).",
)
@click.option("-n", "--max-count", type=click.IntRange(min=1), help="Only the N most recently updated sessions.")
def list_sessions(
    directory: Path | None,
    as_json: bool,
    include_children: bool,
    opencode: bool,
    output_format: str | None,
    max_count: int | None,
) -> None:
    """Sessions of this project, most recently updated first."""
    if opencode:
        _list_opencode(directory, as_json or output_format == "json", include_children)
        return
    if output_format == "json":
        _list_as_opencode(directory, include_children, max_count)
        return

    async def load(runtime: Runtime) -> list[dict[str, Any]]:
        found = await runtime.sessions.list_sessions()
        return [
            {
                "id": s.id,
                "title": s.title,
                "created": s.time.created,
                "updated": s.time.updated,
                "parentID": s.parent_id,
                "directory": s.directory,
            }
            for s in found
            if include_children or s.parent_id is None
        ]

    rows = with_sessions(directory, load)[:max_count]
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo("No sessions yet in this project. Start one with `strata run MESSAGE` or `strata`.")
    else:
        echo_table(["ID", "UPDATED", "TITLE"], [(r["id"], _when(r["updated"]), r["title"]) for r in rows])


def _list_as_opencode(directory: Path | None, include_children: bool, max_count: int | None) -> None:
    """OpenCode's `session list --format json`: its six fields, so scripts written against it read Strata's
    (OpenCode prints nothing at all when there is no session; an empty list is the same to a script)."""

    async def load(runtime: Runtime) -> list[dict[str, Any]]:
        found = [s for s in await runtime.sessions.list_sessions() if include_children or s.parent_id is None]
        return [
            {
                "id": s.id,
                "title": s.title,
                "updated": s.time.updated,
                "created": s.time.created,
                "projectId": s.project_id,
                "directory": s.directory,
            }
            for s in found[:max_count]
        ]

    echo_json(with_sessions(directory, load))


def _list_opencode(directory: Path | None, as_json: bool, include_children: bool) -> None:
    from strata_cli.opencode_sessions import database_path, list_project_sessions

    async def load(runtime: Runtime) -> tuple[Path, list[dict[str, Any]]]:
        path = database_path(runtime.container.env())
        found = list_project_sessions(path, runtime.project)
        rows = [
            {
                "id": s.id,
                "title": s.title,
                "created": s.created,
                "updated": s.updated,
                "parentID": s.parent_id,
                "directory": s.directory,
                "messages": s.messages,
                "imported": await runtime.store.get_session(s.id) is not None,
            }
            for s in sorted(found, key=lambda s: s.updated, reverse=True)
            if include_children or s.parent_id is None
        ]
        return path, rows

    path, rows = with_sessions(directory, load)
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo(f"OpenCode has no sessions of this project (read {path}).")
    else:
        table = [
            (r["id"], _when(r["updated"]), str(r["messages"]), "yes" if r["imported"] else "", r["title"]) for r in rows
        ]
        echo_table(["ID", "UPDATED", "MESSAGES", "IMPORTED", "TITLE"], table)
        click.echo("Import with `strata session import --from-opencode ID` (or --all).", err=True)


@session.command(short_help="Show a session's conversation.")
@click.argument("session_id", metavar="ID")
@options.directory
@options.database
@options.json_output
@any_project
def show(session_id: str, directory: Path | None, as_json: bool, any_project: bool) -> None:
    """A session's conversation: messages, tool calls and errors (--json: the export document)."""
    from strata_cli.transcript import transcript_lines
    from strata_core.engine import settle_if_idle

    async def load(runtime: Runtime) -> tuple[dict[str, Any], list[str]]:
        # An unknown id, or another project's session, fails here, before any lease file is made.
        await _session_here(runtime, session_id, any_project)
        await settle_if_idle(runtime.store, session_id, runtime.clock)
        exported = await runtime.sessions.export(session_id)
        history = await runtime.sessions.messages(session_id)
        info = await runtime.sessions.get(session_id)
        return exported, transcript_lines(info, history, runtime.project.directory)

    exported, lines = with_sessions(directory, load)
    if as_json:
        echo_json(exported)
    else:
        click.echo("\n".join(lines))


@session.command(short_help="Write a session as JSON (OpenCode's export format).")
@click.argument("session_id", metavar="ID")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE, not stdout.")
@click.option("--sanitize", is_flag=True, help="Redact transcript text, tool input and output, and file data.")
@options.directory
@options.database
@any_project
def export(session_id: str, output: Path | None, sanitize: bool, directory: Path | None, any_project: bool) -> None:
    """A session as JSON (OpenCode's export shape, so `opencode import` reads it too).

    --sanitize redacts what `opencode export --sanitize` redacts: texts, reasoning, tool input, output and
    metadata, file contents and paths, titles and directories, each replaced by a marker naming the record;
    and any configured credential (an `{env:}`/`{file:}` value, a key) wherever else it appears.
    """

    async def load(runtime: Runtime) -> dict[str, Any]:
        await _session_here(runtime, session_id, any_project)
        document = await runtime.sessions.export(session_id)
        if sanitize:
            from strata_core.redaction import redact_data
            from strata_core.session import sanitized

            # OpenCode's rule, then every credential config loading saw, wherever it still stands (a provider's
            # error message that echoed the key, say).
            return dict(redact_data(sanitized(document)))
        return document

    import json  # here: `strata --help` imports this module to list the command

    document = json.dumps(with_sessions(directory, load), indent=2, ensure_ascii=False)
    if output is None:
        click.echo(document)
    else:
        output.write_text(document + "\n", encoding="utf-8")
        click.echo(f"Exported {session_id} to {output}", err=True)


@session.command("import", short_help="Store a session from an export file or from OpenCode's database.")
@click.argument("sources", metavar="FILE | ID...", nargs=-1)
@click.option("--from-opencode", is_flag=True, help="Read the sessions from OpenCode's database (IDs, or --all).")
@click.option("--all", "every", is_flag=True, help="With --from-opencode: every OpenCode session of this project.")
@click.option(
    "--new-ids",
    is_flag=True,
    help="Import a copy under new ids when the session (or a message of it) is already stored.",
)
@click.option("--any-project", is_flag=True, help="With --from-opencode: accept sessions of another project.")
@options.directory
@options.database
def import_session(
    sources: tuple[str, ...], from_opencode: bool, every: bool, new_ids: bool, any_project: bool, directory: Path | None
) -> None:
    """Store a session from an export file (`-` reads stdin), into this project.

    With --from-opencode, the sessions are read from OpenCode's own database
    ($XDG_DATA_HOME/opencode/opencode.db), which is only read, never written, even while OpenCode runs:
    the IDs given, or with --all every session of this project (matched by directory) not imported yet.
    `strata session list --opencode` shows them.
    """
    from strata_cli.errors import CliError

    if from_opencode:
        if every == bool(sources):
            raise CliError(
                "--from-opencode takes session IDs or --all, one of the two: "
                "`strata session import --from-opencode --all`."
            )
        _import_from_opencode(sources, every=every, new_ids=new_ids, any_project=any_project, directory=directory)
        return
    if every or any_project:
        raise CliError(
            "--all and --any-project go with --from-opencode: `strata session import --from-opencode --all`."
        )
    if len(sources) != 1:
        raise CliError("Give one export file to import (`-` for stdin): `strata session import FILE`.")
    _import_file(sources[0], new_ids=new_ids, directory=directory)


def _import_file(source: str, *, new_ids: bool, directory: Path | None) -> None:
    from strata_cli.errors import CliError

    if source == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except FileNotFoundError as error:
            raise CliError(f"Cannot import {source}: no such file.") from error
        except IsADirectoryError as error:
            raise CliError(f"Cannot import {source}: it is a directory, not an export file.") from error

    from strata_core.session import parse_export_text

    document = parse_export_text(text, "stdin" if source == "-" else source)

    async def store(runtime: Runtime) -> tuple[str, str, int]:
        from strata_cli.import_conflict import ids_taken, import_conflict
        from strata_core.session import ImportIdsTakenError, SessionExistsError

        try:
            result = await runtime.sessions.import_session(document, new_ids=new_ids)
        except SessionExistsError as error:
            raise CliError(import_conflict(error, source)) from error
        except ImportIdsTakenError as error:
            raise CliError(ids_taken(error, source)) from error
        return result.info.id, result.info.title, result.messages

    imported, title, count = with_sessions(directory, store)
    click.echo(f"Imported {imported} ({title}): {count} messages")


def _import_from_opencode(
    ids: tuple[str, ...], *, every: bool, new_ids: bool, any_project: bool, directory: Path | None
) -> None:
    from strata_cli import opencode_sessions

    async def store(runtime: Runtime) -> list[str]:
        path = opencode_sessions.database_path(runtime.container.env())
        documents = opencode_sessions.read_documents(path, runtime.project, ids, every=every, any_project=any_project)
        if not documents:
            return [f"OpenCode has no sessions of this project (read {path})."]
        return await opencode_sessions.import_documents(runtime, documents, new_ids=new_ids, every=every)

    click.echo("\n".join(with_sessions(directory, store)))


@session.command(short_help="Delete a session and its subagent sessions.")
@click.argument("session_id", metavar="ID")
@options.directory
@options.database
@any_project
def delete(session_id: str, directory: Path | None, any_project: bool) -> None:
    """Delete a session with its messages and its subagent sessions."""

    async def remove(runtime: Runtime) -> str:
        title = (await _session_here(runtime, session_id, any_project)).title
        await runtime.sessions.delete(session_id)
        return title

    title = with_sessions(directory, remove)
    click.echo(f"Deleted {session_id} ({title})")


# diff, revert and unrevert: registered on the group above by importing their module.
from strata_cli.commands import session_changes  # noqa: E402, F401
