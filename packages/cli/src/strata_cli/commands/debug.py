"""`strata debug ...`: look inside without calling a model (paths, merged config, agents, skills, the system prompt)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from strata_cli import options
from strata_cli.output import echo_fields, echo_json, echo_table


@click.group()
def debug() -> None:
    """Inspect what Strata would do, without calling a model."""


@debug.command(short_help="Config, data, cache, state, db and log paths.")
@options.json_output
def paths(as_json: bool) -> None:
    """Where Strata reads config and keeps data, cache, state, the database, tool output and its log."""
    from strata_cli.log_setup import log_file
    from strata_core.config import StrataPaths

    found = StrataPaths.from_env(os.environ)
    fields: dict[str, Path] = {
        "home": found.home,
        "config": found.config,
        "config_opencode": found.compat_config,
        "data": found.data,
        "cache": found.cache,
        "state": found.state,
        "database": found.database,
        "tool_output": found.tool_output,
        "plans": found.plans,
        "log": log_file(found.state),
    }
    if as_json:
        echo_json({name: str(path) for name, path in fields.items()})
    else:
        echo_fields(fields)


@debug.command(short_help="The merged config and its sources.")
@options.directory
def config(directory: Path | None) -> None:
    """The merged configuration and the files it came from (credentials redacted), as JSON; with `mcp`
    servers, each one's status and tools (they are started to see).

    Hidden by key (API keys, tokens, passwords, credentials, auth, cookies, every header and MCP environment
    value) and by value (whatever `{env:}`/`{file:}` put in, wherever it sits; URL userinfo), so the output
    can be pasted into a bug report.
    """
    import anyio

    from strata_cli.app import build_container
    from strata_cli.mcp_view import ServerView, configured_views, views_json
    from strata_core.config import ConfigInfo
    from strata_core.redaction import redact_data

    container = build_container(options.resolve_directory(directory))

    async def load() -> tuple[ConfigInfo, list[ServerView]]:
        info = await container.core.config().get()
        return info, await configured_views(container, info)

    info, servers = anyio.run(load)
    echo_json(
        {
            "sources": [str(path) for path in info.sources],
            "config_dirs": [str(path) for path in info.config_dirs],
            "config": redact_data(info.data),
            **({"mcp": views_json(servers)} if servers else {}),
        }
    )


@debug.command("agent", short_help="One agent with its permission rules.")
@click.argument("name")
@options.directory
def agent_info(name: str, directory: Path | None) -> None:
    """One agent as Strata resolved it, permission rules included, as JSON."""
    import anyio

    from strata_cli.agent_view import agent_json, agent_not_found
    from strata_cli.app import build_container

    container = build_container(options.resolve_directory(directory))

    async def load() -> dict[str, Any]:
        found = await container.core.agents().get(name)
        if found is None:
            raise agent_not_found(name, await container.core.agents().list())
        return agent_json(found)

    echo_json(anyio.run(load))


@debug.command("skill", short_help="Skills and where they were found.")
@options.directory
@options.json_output
def skill_list(directory: Path | None, as_json: bool) -> None:
    """Every skill found, with the SKILL.md it was loaded from."""
    import anyio

    from strata_cli.app import build_container

    container = build_container(options.resolve_directory(directory))
    skills = anyio.run(container.core.skills().all)
    if as_json:
        echo_json([{"name": s.name, "description": s.description, "location": s.location} for s in skills])
    else:
        echo_table(["NAME", "LOCATION"], [(s.name, s.location) for s in skills])


@debug.command(short_help="The exact system prompt and its layers.")
@options.directory
@options.agent
@options.model
@options.json_output
def prompt(directory: Path | None, agent: str | None, model: str | None, as_json: bool) -> None:
    """The exact system prompt a turn would send, the layers it is made of and the instruction sources that gave
    nothing, with why (no model is called)."""
    from contextlib import AsyncExitStack

    import anyio

    from strata_cli.app import build_container, load_config, pick_agent, pick_model_info
    from strata_cli.mcp_view import ServerView, offered_to, server_views, start_servers, views_json
    from strata_core.prompt import AssembledSystemPrompt, SystemPromptRequest

    container = build_container(options.resolve_directory(directory))

    async def assemble() -> tuple[str, str, AssembledSystemPrompt, list[ServerView]]:
        config = await load_config(container)
        chosen = await pick_agent(container.core.agents(), agent)
        info = pick_model_info(container.models.catalog(), config, chosen, model)
        async with AsyncExitStack() as stack:
            servers = await start_servers(stack, container, config)
            views = offered_to(await server_views(servers), chosen.permission) if servers else []
            block = await servers.system_block(chosen.permission) if servers else None
        built = await container.core.system_prompt().build(SystemPromptRequest(chosen, info, mcp=block))
        return chosen.name, info.ref, built, views

    agent_name, model_ref, assembled, servers = anyio.run(assemble)
    layers = [{"kind": layer.kind, "source": layer.source, "chars": layer.chars} for layer in assembled.layers]
    failures = [{"source": failure.source, "reason": failure.reason} for failure in assembled.failures]
    if as_json:
        mcp = {"mcp": views_json(servers)} if servers else {}
        shown = {"system": assembled.text, "layers": layers, "failures": failures}
        echo_json({**shown, "agent": agent_name, "model": model_ref, **mcp})
        return
    click.echo(assembled.text)
    click.echo(f"\n# agent {agent_name} · model {model_ref} · {len(assembled.text)} chars", err=True)
    for layer in layers:
        click.echo(f"#   {layer['kind']:<17} {layer['chars']:>7}  {layer['source']}", err=True)
    for failure in failures:
        click.echo(f"# instruction skipped {failure['source']}: {failure['reason']}", err=True)
    for server in servers:
        detail = f": {server.error}" if server.error else f", tools: {', '.join(server.tools) or 'none'}"
        click.echo(f"# mcp {server.name} {server.status}{detail}", err=True)


@debug.command("sandbox", short_help="How shell commands are contained here.")
@options.sandbox
@options.directory
@options.json_output
def sandbox_info(directory: Path | None, as_json: bool) -> None:
    """The sandbox in force for shell commands in this project: its mode (and why, if not the one wanted),
    what commands may write and read, what stays protected or hidden, and the variables they do not see."""
    import anyio

    from strata_cli.app import build_container
    from strata_core.config import StrataPaths
    from strata_core.sandbox import configured_sandbox, describe, writable_root
    from strata_core.tool import DEFAULT_HIDDEN_ENV

    container = build_container(options.resolve_directory(directory))
    info = anyio.run(container.core.config().get)
    project = anyio.run(container.core.project().info)
    paths = StrataPaths.from_env(os.environ)
    root = writable_root(project.directory, project.worktree)
    sandbox = configured_sandbox(info, os.environ, paths, project.id)
    shown = describe(sandbox, root, os.environ, DEFAULT_HIDDEN_ENV)
    if as_json:
        echo_json(shown)
        return
    for key, value in shown.items():
        if isinstance(value, list):
            click.echo(f"{key}:" + ("" if value else " (none)"))
            for item in value:
                click.echo(f"  {item}")
        else:
            click.echo(f"{key}: {value if value is not None else '-'}")
