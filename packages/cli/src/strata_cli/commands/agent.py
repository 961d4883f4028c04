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


AGENT_TOOLS = ("bash", "read", "glob", "grep", "edit", "write", "task", "webfetch", "todowrite", "skill")
"""The tools `agent create` offers to switch off (OpenCode's `tools` frontmatter; `edit` covers write and patch)."""


@agent.command("create")
@click.option("--name", prompt="Name (letters, digits, - and _)", help="The agent's name, and its file's.")
@click.option("--description", prompt="What it does, in one line", help="Shown in lists and to the task tool.")
@click.option(
    "--mode",
    type=click.Choice(["primary", "subagent", "all"]),
    default="subagent",
    show_default=True,
    prompt="Mode (primary: talk to it; subagent: other agents call it; all: both)",
    help="How it is used.",
)
@click.option(
    "--tools",
    default="all",
    show_default=True,
    prompt=f"Tools it may use, comma-separated ({', '.join(AGENT_TOOLS)}), or all",
    help="Comma-separated tool names, or `all`.",
)
@click.option("--prompt", "instructions", default="", help="Its prompt (default: the description; edit the file).")
@options.directory
def create_agent(name: str, description: str, mode: str, tools: str, instructions: str, directory: Path | None) -> None:
    """Write a markdown agent, `.strata/agent/NAME.md`, asking for what is not given as an option."""
    from strata_cli.agent_file import agent_markdown, allowed_tools, checked_name
    from strata_cli.errors import CliError

    project = options.resolve_directory(directory)
    path = project / ".strata" / "agent" / f"{checked_name(name)}.md"
    if path.exists():
        raise CliError(f"{path} already exists; edit it, or choose another name.")
    allowed = allowed_tools(tools, AGENT_TOOLS)
    text = agent_markdown(description.strip(), mode, allowed, AGENT_TOOLS, instructions.strip() or description.strip())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    click.echo(f"Created {path}. `strata agent list` shows it; edit the file to refine its prompt.")
