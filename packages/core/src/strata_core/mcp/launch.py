"""How a `local` MCP server is started: its argv, environment and working directory, built in one place.

`local_launch` is the only function that decides what process a local server becomes, so a containment
layer (the sandbox) can wrap exactly this: take the `LocalLaunch` and return another (bwrap's argv in front,
a scrubbed environment) before the connection spawns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from attrs import frozen

from strata_core.config.schema import McpLocalConfig


@frozen
class LocalLaunch:
    """A local server's process, as it will be spawned (in a process group of its own, stdio piped)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path


def local_launch(config: McpLocalConfig, env: Mapping[str, str], directory: Path) -> LocalLaunch:
    """The process for `config`: the command as written, Strata's environment with the server's
    `environment` over it (as OpenCode passes its own), run in `cwd` resolved against the project
    directory (or the directory itself)."""
    cwd = directory / config.cwd if config.cwd else directory
    return LocalLaunch(argv=config.command, env={**env, **config.environment}, cwd=cwd)
