"""`strata serve`: OpenCode's HTTP API for this project, so OpenCode's SDK and clients can drive Strata.

The server package is imported here, inside the command, and nowhere else in the CLI: `strata run` never
loads it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from strata_cli import options


@click.command()
@click.option("--port", type=int, default=4096, show_default=True, help="Port to listen on (0: any free port).")
@click.option("--hostname", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--cors", multiple=True, metavar="ORIGIN", help="A browser origin allowed to call the API (repeatable).")
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name clients reach the server by, besides IP addresses, localhost and --hostname (a reverse "
    "proxy's or a LAN name; repeatable). A request naming any other Host is refused (DNS rebinding).",
)
@click.option(
    "--permission-timeout",
    type=click.FloatRange(min=1),
    default=600,
    show_default=True,
    help="Seconds a permission question waits for an answer over the API before the tool call fails.",
)
@options.directory
@options.database
def serve(
    port: int,
    hostname: str,
    cors: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    permission_timeout: float,
    directory: Path | None,
) -> None:
    """Serve OpenCode's HTTP API (sessions, prompts, permissions, files, events) for this project.

    Listens on loopback unless --hostname says otherwise, which needs STRATA_SERVER_PASSWORD (or
    OPENCODE_SERVER_PASSWORD): every request then needs HTTP basic auth (user `opencode`, or
    STRATA_SERVER_USERNAME). The OpenAPI document of what is served is at /doc.

    Web pages cannot use it through a browser: a request whose Host is not an IP address, localhost,
    --hostname or an --allowed-host is refused (DNS rebinding), and so is a change (POST, PUT, PATCH,
    DELETE) sent from an origin not given with --cors, or with a body that is not application/json.
    """
    from strata_cli.lean_start import heavy_imports

    with heavy_imports():
        import anyio
        from attrs import evolve

        from strata_cli.app import build_container

        try:
            from strata_cli.serve_session import serve_project
            from strata_server import ServerSettings, ServerSettingsError
        except ModuleNotFoundError as missing:
            raise click.UsageError(
                f"strata serve needs the server package ({missing.name} is not installed): "
                "install strata-cli[server] (or strata-server)."
            ) from missing

    try:
        settings = ServerSettings.from_env(
            os.environ, hostname=hostname, port=port, cors=cors, allowed_hosts=allowed_hosts
        )
    except ServerSettingsError as error:
        raise click.UsageError(str(error)) from error
    settings = evolve(settings, permission_timeout=permission_timeout)
    container = build_container(options.resolve_directory(directory))
    anyio.run(serve_project, container, settings, _print_url)


def _print_url(url: str) -> None:
    sys.stdout.write(f"strata server listening on {url}\n")
    sys.stdout.flush()
