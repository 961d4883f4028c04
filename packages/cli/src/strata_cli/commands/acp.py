"""`strata acp`: the Agent Client Protocol on stdio, so an editor (Zed, JetBrains, Neovim) uses Strata as its agent.

The ACP package is imported here, inside the command, and nowhere else in the CLI: `strata run` never loads
it. Standard output carries protocol messages only; logs go to the log file (stderr with STRATA_DEBUG).
"""

from __future__ import annotations

from pathlib import Path

import click

from strata_cli import options


@click.command()
@options.directory
def acp(directory: Path | None) -> None:
    """Serve the Agent Client Protocol (JSON-RPC over stdin/stdout) for an editor that starts Strata as its agent.

    Permission questions go to the editor; sessions are Strata's own (load, list, fork and resume them from the
    editor, or `strata session list`).
    """
    from strata_cli.lean_start import heavy_imports

    with heavy_imports():
        import anyio

        from strata_cli.app import build_container

        try:
            from strata_cli.acp_session import serve_acp
        except ModuleNotFoundError as missing:
            raise click.UsageError(
                f"strata acp needs the ACP package ({missing.name} is not installed): "
                "install strata-cli[acp] (or strata-acp)."
            ) from missing

    container = build_container(options.resolve_directory(directory))
    anyio.run(serve_acp, container)
