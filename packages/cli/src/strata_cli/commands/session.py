"""`strata session list|show|export|import|delete`: the stored sessions of this project."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from strata_cli import options
from strata_cli.output import echo_json, echo_table

if TYPE_CHECKING:
    from strata_core.runtime import Runtime

T = TypeVar("T")


def _with_sessions(directory: Path | None, action: Callable[[Runtime], Awaitable[T]]) -> T:
    """Open the runtime (store included) for this project, run `action`, close everything."""
    import anyio

    from strata_cli.app import build_container, start_runtime

    container = build_container(options.resolve_directory(directory))

    async def main() -> T:
        async with start_runtime(container, "non_interactive", mcp=False) as runtime:  # no turn, no servers
            return await action(runtime)

    return anyio.run(main)


def _when(ms: int) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


@click.group()
def session() -> None:
    """Stored sessions of this project."""


@session.command("list")
@options.directory
@options.json_output
@click.option("--all", "include_children", is_flag=True, help="Include subagent (child) sessions.")
def list_sessions(directory: Path | None, as_json: bool, include_children: bool) -> None:
    """Sessions of this project, most recently updated first."""

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

    rows = _with_sessions(directory, load)
    if as_json:
        echo_json(rows)
    elif not rows:
        click.echo("No sessions yet in this project. Start one with `strata run MESSAGE` or `strata`.")
    else:
        echo_table(["ID", "UPDATED", "TITLE"], [(r["id"], _when(r["updated"]), r["title"]) for r in rows])


@session.command(short_help="Show a session's conversation.")
@click.argument("session_id", metavar="ID")
@options.directory
@options.json_output
def show(session_id: str, directory: Path | None, as_json: bool) -> None:
    """A session's conversation: messages, tool calls and errors (--json: the export document)."""
    from strata_cli.transcript import transcript_lines
    from strata_core.engine.session_writer import settle_if_idle

    async def load(runtime: Runtime) -> tuple[dict[str, Any], list[str]]:
        await runtime.sessions.get(session_id)  # an unknown id fails here, before any lease file is made
        await settle_if_idle(runtime.store, session_id, runtime.clock)
        exported = await runtime.sessions.export(session_id)
        history = await runtime.sessions.messages(session_id)
        info = await runtime.sessions.get(session_id)
        return exported, transcript_lines(info, history, runtime.project.directory)

    exported, lines = _with_sessions(directory, load)
    if as_json:
        echo_json(exported)
    else:
        click.echo("\n".join(lines))


@session.command(short_help="Write a session as JSON (OpenCode's export format).")
@click.argument("session_id", metavar="ID")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE, not stdout.")
@options.directory
def export(session_id: str, output: Path | None, directory: Path | None) -> None:
    """A session as JSON (OpenCode's export shape, so `opencode import` reads it too)."""

    async def load(runtime: Runtime) -> dict[str, Any]:
        return await runtime.sessions.export(session_id)

    document = json.dumps(_with_sessions(directory, load), indent=2, ensure_ascii=False)
    if output is None:
        click.echo(document)
    else:
        output.write_text(document + "\n", encoding="utf-8")
        click.echo(f"Exported {session_id} to {output}", err=True)


@session.command("import", short_help="Store a session from an export file.")
@click.argument("source", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option("--new-ids", is_flag=True, help="Import a copy under new ids when the session is already stored.")
@options.directory
def import_session(source: Path, new_ids: bool, directory: Path | None) -> None:
    """Store a session from an export file (`-` reads stdin), into this project."""
    from strata_cli.errors import CliError

    if str(source) == "-":
        text = sys.stdin.read()
    else:
        try:
            text = source.read_text(encoding="utf-8")
        except FileNotFoundError as error:
            raise CliError(f"Cannot import {source}: no such file.") from error

    from strata_core.session.export import parse_export_text

    document = parse_export_text(text, "stdin" if str(source) == "-" else str(source))

    async def store(runtime: Runtime) -> tuple[str, str, int]:
        result = await runtime.sessions.import_session(document, new_ids=new_ids)
        return result.info.id, result.info.title, result.messages

    imported, title, count = _with_sessions(directory, store)
    click.echo(f"Imported {imported} ({title}): {count} messages")


@session.command(short_help="Delete a session and its subagent sessions.")
@click.argument("session_id", metavar="ID")
@options.directory
def delete(session_id: str, directory: Path | None) -> None:
    """Delete a session with its messages and its subagent sessions."""

    async def remove(runtime: Runtime) -> str:
        title = (await runtime.sessions.get(session_id)).title
        await runtime.sessions.delete(session_id)
        return title

    title = _with_sessions(directory, remove)
    click.echo(f"Deleted {session_id} ({title})")
