"""How a `local` MCP server is started: its argv, environment and working directory, built in one place.

`local_launch` is the only function that decides what process a local server becomes, and a `Contain`
(`sandboxed`: the shell sandbox's server layout, `sandbox/server_launch.py`) wraps exactly that before the
connection spawns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from strata_core.config.schema import McpLocalConfig
from strata_core.sandbox.server_launch import Contain, LocalLaunch, sandboxed

__all__ = ["Contain", "LocalLaunch", "local_launch", "sandboxed"]


def local_launch(config: McpLocalConfig, env: Mapping[str, str], directory: Path) -> LocalLaunch:
    """The process for `config`: the command as written, Strata's environment with the server's
    `environment` over it (as OpenCode passes its own), run in `cwd` resolved against the project
    directory (or the directory itself)."""
    cwd = directory / config.cwd if config.cwd else directory
    return LocalLaunch(argv=config.command, env={**env, **config.environment}, cwd=cwd, configured=config.environment)
