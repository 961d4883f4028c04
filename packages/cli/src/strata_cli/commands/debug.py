"""`strata debug ...`: look inside without calling a model (paths, merged config, agents, skills, the system prompt)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from strata_cli import options
from strata_cli.output import echo_fields, echo_json


@click.group()
def debug() -> None:
    """Inspect what Strata would do, without calling a model."""


@debug.command()
@options.json_output
def paths(as_json: bool) -> None:
    """Where Strata reads config and keeps data, cache, state, the database and tool output."""
    from strata_core.paths import StrataPaths

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
    }
    if as_json:
        echo_json({name: str(path) for name, path in fields.items()})
    else:
        echo_fields(fields)
