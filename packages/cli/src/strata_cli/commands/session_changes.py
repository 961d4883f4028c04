"""`strata session diff|revert|unrevert`: what a session's turns changed on disk, and taking it back.

The same session service as the server's `/session/{id}/diff`, `/revert` and `/unrevert` (OpenCode's TUI's
undo and redo): a revert puts the files changed from a message on back as they were and hides those
messages until `unrevert` or the next prompt, which drops them for good.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from strata_cli import options
from strata_cli.commands.session import _session_here, any_project, session, with_sessions
from strata_cli.errors import CliError
from strata_cli.output import echo_json

if TYPE_CHECKING:
    from strata_core.runtime import Runtime
    from strata_core.snapshot import FileDiff

force_option = click.option(
    "--force", is_flag=True, help="Overwrite files changed outside the agent since (their changes are lost)."
)


@contextmanager
def _force_hint() -> Iterator[None]:
    """A refused revert or unrevert, with how to force it from this command (the core's wording is neutral)."""
    from strata_core.session import RevertConflictError  # loaded with the sessions, not at CLI start

    try:
        yield
    except RevertConflictError as error:
        raise CliError(f"{error} Add --force to do so.") from None


@session.command(short_help="Show the files a session's turns changed.")
@click.argument("session_id", metavar="[ID]", required=False)
@click.option("--message", "message_id", metavar="MESSAGE_ID", help="Only what this user message's turn changed.")
@click.option("--stat", is_flag=True, help="Only each file's name and counts.")
@options.directory
@options.database
@options.json_output
@any_project
def diff(
    session_id: str | None, message_id: str | None, stat: bool, directory: Path | None, as_json: bool, any_project: bool
) -> None:
    """The files the session's turns changed (the latest session of this project without ID), each as one
    whole-file patch; --json prints OpenCode's diff objects."""

    async def load(runtime: Runtime) -> list[FileDiff]:
        target = session_id or await _latest_session(runtime)
        await _session_here(runtime, target, any_project)
        return await runtime.sessions.diff(target, message_id)

    diffs = with_sessions(directory, load)
    if as_json:
        echo_json([change.to_json() for change in diffs])
        return
    for change in diffs:
        click.echo(f"{change.status[0].upper()} {change.file} (+{change.additions} -{change.deletions})")
        if not stat and change.patch:
            click.echo(change.patch, nl=False)
    added, deleted = sum(d.additions for d in diffs), sum(d.deletions for d in diffs)
    click.echo(f"{len(diffs)} file(s) changed, +{added} -{deleted}" if diffs else "No files changed.")


@session.command(short_help="Take back the file changes made from a message on.")
@click.argument("session_id", metavar="ID")
@click.argument("message_id", metavar="MESSAGE_ID")
@click.option("--part", "part_id", metavar="PART_ID", help="Revert from this part of the message on.")
@force_option
@options.directory
@options.database
@any_project
def revert(
    session_id: str, message_id: str, part_id: str | None, force: bool, directory: Path | None, any_project: bool
) -> None:
    """Put the files the session changed from MESSAGE_ID on back as they were, and hide those messages
    (`strata session unrevert ID` puts the files back; the next prompt drops the messages for good)."""

    async def act(runtime: Runtime) -> list[str]:
        await _session_here(runtime, session_id, any_project)
        with _force_hint():
            info = await runtime.sessions.revert(session_id, message_id, part_id, force=force)
        return _files_of((info.revert or {}).get("diff", ""))

    files = with_sessions(directory, act)
    for name in files:
        click.echo(f"reverted {name}")
    click.echo(
        f"Reverted {session_id} from {message_id} ({len(files)} file(s)); "
        f"`strata session unrevert {session_id}` puts the changes back."
    )


@session.command(short_help="Put back what the last revert took away.")
@click.argument("session_id", metavar="ID")
@force_option
@options.directory
@options.database
@any_project
def unrevert(session_id: str, force: bool, directory: Path | None, any_project: bool) -> None:
    """Put back the files the session's revert took away, and show its messages again."""

    async def act(runtime: Runtime) -> bool:
        info = await _session_here(runtime, session_id, any_project)
        if not info.revert:
            return False
        with _force_hint():
            await runtime.sessions.unrevert(session_id, force=force)
        return True

    done = with_sessions(directory, act)
    click.echo(f"Restored the reverted changes of {session_id}." if done else f"{session_id} has no revert to undo.")


async def _latest_session(runtime: Runtime) -> str:
    from strata_cli.errors import CliError

    sessions = [s for s in await runtime.sessions.list_sessions() if s.parent_id is None]
    if not sessions:
        raise CliError("No session in this project yet: run `strata run` first, or give a session ID.")
    return max(sessions, key=lambda s: s.time.updated).id


def _files_of(diff_text: str) -> list[str]:
    """The files a `git diff` text names (a revert's `diff`)."""
    return re.findall(r"^diff --git a/(.+?) b/", diff_text, flags=re.MULTILINE)
