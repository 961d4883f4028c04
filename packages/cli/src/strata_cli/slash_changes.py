"""`/diff`, `/undo` and `/redo` of the interactive mode: the last turn's file changes, taken back and put back.

As in OpenCode's TUI: undo reverts from the last user message not yet reverted (again and again, one turn
further back each time), redo moves the revert one turn forward, and past the last turn clears it. The
messages a revert hides are dropped for good by the next message sent.
"""

from __future__ import annotations

from rich.markup import escape

from strata_cli.errors import CliError
from strata_cli.slash_actions import SlashTarget
from strata_core.message import UserMessage
from strata_core.session import RevertConflictError
from strata_core.session_info import SessionInfo


async def show_diff(app: SlashTarget) -> None:
    session = _current(app)
    users = await _user_message_ids(app)
    diffs = await app.runtime.sessions.diff(session, users[-1] if users else None)
    if not diffs:
        app.console.print("The last turn changed no files.")
        return
    for change in diffs:
        app.console.print(f"[bold]{change.status} {escape(change.file)}[/] (+{change.additions} -{change.deletions})")
        app.console.print(escape(change.patch), end="", highlight=False)


async def undo(app: SlashTarget) -> None:
    session = _current(app)
    info = await app.runtime.sessions.get(session)
    boundary = (info.revert or {}).get("messageID")
    earlier = [message_id for message_id in await _user_message_ids(app) if boundary is None or message_id < boundary]
    if not earlier:
        app.console.print("Nothing to undo.")
        return
    app.session = await _reverting(app, session, earlier[-1])
    app.console.print("Undid the last turn's file changes (/redo puts them back; your next message drops the turn).")


async def redo(app: SlashTarget) -> None:
    session = _current(app)
    info = await app.runtime.sessions.get(session)
    boundary = (info.revert or {}).get("messageID")
    if boundary is None:
        app.console.print("Nothing to redo.")
        return
    later = [message_id for message_id in await _user_message_ids(app) if message_id > boundary]
    try:
        if later:
            app.session = await app.runtime.sessions.revert(session, later[0])
        else:
            app.session = await app.runtime.sessions.unrevert(session)
    except RevertConflictError as error:
        raise CliError(f"{error} (from a shell: strata session unrevert {session} --force)") from None
    app.console.print("Redid the turn's file changes.")


async def _reverting(app: SlashTarget, session: str, message_id: str) -> SessionInfo:
    try:
        return await app.runtime.sessions.revert(session, message_id)
    except RevertConflictError as error:
        raise CliError(f"{error} (from a shell: strata session revert {session} {message_id} --force)") from None


def _current(app: SlashTarget) -> str:
    if app.session is None:
        raise CliError("Nothing has changed yet: this is a new session.")
    return app.session.id


async def _user_message_ids(app: SlashTarget) -> list[str]:
    assert app.session is not None
    history = await app.runtime.sessions.messages(app.session.id)
    return [message.info.id for message in history if isinstance(message.info, UserMessage)]
