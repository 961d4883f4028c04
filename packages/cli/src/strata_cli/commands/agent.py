"""`strata agent list`: the agents this project can use."""

from __future__ import annotations

from pathlib import Path

import click

from strata_cli import options
from strata_cli.output import echo_json, echo_table, one_line


@click.group()
def agent() -> None:
    """Agents: built-in, from config, and from agent markdown files."""


@agent.command("list")
@options.directory
@options.json_output
def list_agents(directory: Path | None, as_json: bool) -> None:
    """Every visible agent, the default first; primary agents are the ones Tab cycles through."""
    import anyio

    from strata_cli.app import build_container

    container = build_container(options.resolve_directory(directory))

    async def load() -> tuple[list[tuple[str, str, str]], str]:
        agents, default = await container.core.agents().list(), await container.core.agents().default_agent()
        rows = [(a.name, str(a.mode), a.description or "") for a in agents if not a.hidden]
        return rows, default.name

    rows, default = anyio.run(load)
    if as_json:
        echo_json([{"name": n, "mode": m, "description": d, "default": n == default} for n, m, d in rows])
        return
    table = [(f"{n} (default)" if n == default else n, m, one_line(d)) for n, m, d in rows]
    echo_table(["NAME", "MODE", "DESCRIPTION"], table)
