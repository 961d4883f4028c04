"""`strata models [PROVIDER]`: every model Strata can call, as `provider/model` references."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from strata_cli import options
from strata_cli.output import echo_json


@click.command(short_help="List models as provider/model references.")
@click.argument("provider", required=False)
@options.directory
@options.json_output
def models(provider: str | None, directory: Path | None, as_json: bool) -> None:
    """List models, one `provider/model` per line (built-in providers and those in your config).

    With --json, each model comes with its limits, capabilities and whether its provider's key is set.
    """
    import anyio

    from strata_cli.app import build_container, load_config
    from strata_cli.errors import CliError

    container = build_container(options.resolve_directory(directory))
    anyio.run(load_config, container)
    catalog = container.models.catalog()
    specs = catalog.providers
    if provider is not None and provider not in specs:
        raise CliError(f'Unknown provider "{provider}". Known providers: {", ".join(sorted(specs))}.')
    rows: list[dict[str, Any]] = []
    for spec in specs.values():
        if provider is not None and spec.id != provider:
            continue
        key = "not needed" if not spec.needs_key else ("set" if catalog.api_key(spec) else "missing")
        for info in spec.models.values():
            rows.append(
                {
                    "ref": info.ref,
                    "provider": spec.id,
                    "name": info.name or info.id,
                    "context": info.limits.context,
                    "output": info.limits.output,
                    "tool_call": info.capabilities.tool_call,
                    "reasoning": info.capabilities.reasoning,
                    "key": key,
                    "key_env": list(spec.env),
                }
            )
    if as_json:
        echo_json(rows)
        return
    for row in rows:
        click.echo(row["ref"])
