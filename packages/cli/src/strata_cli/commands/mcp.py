"""`strata mcp list`: the configured MCP servers, started to see whether they work."""

from __future__ import annotations

from pathlib import Path

import click

from strata_cli import options
from strata_cli.output import echo_json, echo_table


@click.group()
def mcp() -> None:
    """The MCP servers of the config (`mcp` in opencode.json or strata.json)."""


@mcp.command("list", short_help="Each server: connected, failed (and why) or disabled; its tools.")
@options.directory
@options.json_output
def mcp_list(directory: Path | None, as_json: bool) -> None:
    """Start every configured server, as a run would (each within its timeout), and show what came of it."""
    import anyio

    from strata_cli.app import build_container, load_config
    from strata_cli.mcp_view import ServerView, configured_views, views_json, views_rows

    container = build_container(options.resolve_directory(directory))

    async def look() -> list[ServerView]:
        config = await load_config(container)
        return await configured_views(container, config)

    views = anyio.run(look)
    if as_json:
        echo_json(views_json(views))
    elif not views:
        click.echo('No MCP servers configured (add them under "mcp" in opencode.json or strata.json).')
    else:
        echo_table(["NAME", "STATUS", "TOOLS", "DETAIL"], views_rows(views))
