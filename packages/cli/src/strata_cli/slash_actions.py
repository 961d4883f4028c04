"""What each slash command of the interactive mode does to the running app."""

from __future__ import annotations

import json
import time
from typing import Protocol

import anyio
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from strata_cli.agent_view import agent_not_found
from strata_cli.errors import CliError
from strata_cli.model_choices import usable_models
from strata_cli.output import one_line
from strata_cli.run_session import check_variant, expected_model
from strata_cli.slash import SlashCommand, help_text
from strata_core.context import AgentInfo, CommandInfo
from strata_core.runtime import Runtime
from strata_core.session_info import SessionInfo


class SlashTarget(Protocol):
    """What a slash command reads and changes of the interactive app (`interactive.Interactive` is it)."""

    runtime: Runtime
    console: Console
    agents: dict[str, AgentInfo]
    agent: str
    base_model: str
    session: SessionInfo | None
    model_override: str | None
    commands: dict[str, CommandInfo]
    variant: str | None

    @property
    def model(self) -> str: ...

    async def run_command(self, name: str, arguments: str) -> None: ...

    async def show_resumed(self, turns: int = ...) -> None: ...

    async def show_history(self, turns: int) -> None: ...

    async def compact(self) -> None: ...


HISTORY_TURNS = 10


async def run_slash(app: SlashTarget, command: SlashCommand) -> bool:
    """Carry out `command`; False when the app should end."""
    if command.custom:
        await app.run_command(command.name, command.argument)
    elif command.name == "quit":
        return False
    elif command.name == "help":
        custom = {name: info.description or "" for name, info in app.commands.items()}
        app.console.print(escape(help_text(custom)))
    elif command.name == "history":
        await app.show_history(_turns(command.argument))
    elif command.name == "agent":
        _agent(app, command.argument)
    elif command.name == "model":
        _model(app, command.argument)
    elif command.name == "variant":
        _variant(app, command.argument)
    elif command.name == "sessions":
        await _sessions(app, command.argument)
    elif command.name == "new":
        app.session = None
        app.console.print("New session: it is created with your next message.")
    elif command.name == "compact":
        await app.compact()
    elif command.name == "export":
        await _export(app, command.argument)
    elif command.name == "mcp":
        await _mcp(app)
    elif command.name in ("diff", "undo", "redo"):
        from strata_cli import slash_changes

        await {"diff": slash_changes.show_diff, "undo": slash_changes.undo, "redo": slash_changes.redo}[command.name](
            app
        )
    return True


def _agent(app: SlashTarget, name: str) -> None:
    if not name:
        for shown in app.agents.values():
            if not shown.hidden:
                marker = "→" if shown.name == app.agent else " "
                about = escape(one_line(shown.description or ""))
                app.console.print(f"{marker} [bold]{escape(shown.name)}[/bold] ({shown.mode}) {about}")
        return
    info = app.agents.get(name)
    if info is None or info.hidden:
        raise agent_not_found(name, list(app.agents.values()))
    if info.mode == "subagent":
        raise CliError(f'"{name}" is a subagent: primary agents call it through the task tool. Try "@{name}".')
    app.agent = name
    app.console.print(f"Agent: [bold]{escape(name)}[/bold] · {escape(app.model)}")


def _turns(argument: str) -> int:
    if not argument:
        return HISTORY_TURNS
    if not argument.isdigit() or int(argument) == 0:
        raise CliError(f"/history takes a number of turns (1 or more), not {argument!r}.")
    return int(argument)


def _model(app: SlashTarget, ref: str) -> None:
    if not ref:
        app.console.print(f"Model: [bold]{escape(app.model)}[/bold]")
        choices = usable_models(app.runtime.models)
        for choice in choices:
            app.console.print(f"{'→' if choice == app.model else ' '} {escape(choice)}")
        app.console.print("Switch with /model PROVIDER/MODEL (type /model and press Tab to pick).")
        return
    info = app.runtime.models.resolve(ref).info  # unknown models and missing keys fail here, with the fix
    app.model_override = info.ref
    app.console.print(f"Model: [bold]{escape(info.ref)}[/bold]")


def _variant(app: SlashTarget, name: str) -> None:
    info = app.runtime.models.resolve(app.model).info
    if not name:
        current = app.variant or "none"
        app.console.print(f"Variant of {escape(info.ref)}: [bold]{escape(current)}[/bold]. Its variants: "
                          f"{escape(', '.join(info.variants) or 'none')}; switch with /variant NAME.")  # fmt: skip
        return
    if name == "none":
        app.variant = None
    else:
        check_variant(info, name)
        app.variant = name
    app.console.print(f"Variant: [bold]{escape(name)}[/bold] · {escape(info.ref)}")


async def _sessions(app: SlashTarget, session_id: str) -> None:
    sessions = app.runtime.sessions
    if session_id:
        app.session = await sessions.get(session_id)
        app.base_model = await expected_model(app.runtime, app.agents[app.agent], None, app.session)
        await app.show_resumed()
        return
    roots = [s for s in await sessions.list_sessions() if s.parent_id is None]
    if not roots:
        app.console.print("No sessions yet in this project.")
        return
    table = Table("", "ID", "UPDATED", "TITLE", box=None, pad_edge=False)
    for info in roots:
        current = "→" if app.session is not None and app.session.id == info.id else ""
        updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.time.updated / 1000))
        table.add_row(current, info.id, updated, escape(info.title))
    app.console.print(table)
    app.console.print("Continue one with /sessions ID.")


async def _export(app: SlashTarget, target: str) -> None:
    if app.session is None:
        raise CliError("Nothing to export yet: this is a new session.")
    document = await app.runtime.sessions.export(app.session.id)
    name = target or f"session-{app.session.id}.json"
    path = anyio.Path(app.runtime.project.directory) / await anyio.Path(name).expanduser()
    await path.parent.mkdir(parents=True, exist_ok=True)
    await path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    app.console.print(f"Exported to {escape(str(path))}")


async def _mcp(app: SlashTarget) -> None:
    from strata_cli.mcp_view import server_views, views_rows

    if app.runtime.mcp is None:
        app.console.print('No MCP servers configured (add them under "mcp" in opencode.json or strata.json).')
        return
    table = Table("NAME", "STATUS", "TOOLS", "DETAIL", box=None, pad_edge=False)
    for row in views_rows(await server_views(app.runtime.mcp)):
        table.add_row(*(escape(cell) for cell in row))
    app.console.print(table)
